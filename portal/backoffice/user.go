package backoffice

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/disburse/disburse"
	"github.com/disburse/disburse/auth"
	"github.com/disburse/disburse/internal/secrets"
	"github.com/disburse/disburse/internal/text"
	"golang.org/x/crypto/argon2"
)

// Role is the kind of portal user: an operator or a user of one
// organisation. What an organisation user may do there is their
// auth.Roles (docs/portal.md, "Roles").
type Role string

// The kinds: an operator sees every organisation, an organisation user
// their own.
const (
	RoleOperator     Role = "operator"     // the whole service
	RoleOrganisation Role = "organisation" // one organisation, the user's own
)

// User signs in to the management portal with an email and a
// password, of which only an argon2id hash is stored.
type User struct {
	ID             string
	Email          string
	PasswordHash   string
	Role           Role
	OrganisationID string     // set for RoleOrganisation only
	Roles          auth.Roles // an organisation user's roles there; none for an operator
	CreatedAt      time.Time
}

// Permits reports whether the user may use what needs the organisation
// role need: an organisation user by their roles; an operator always, as
// the operator's pages and the handlers say what an operator may do there
// (operators look but do not pay: docs/portal.md).
func (u User) Permits(need auth.Role) bool {
	return u.Role == RoleOperator || u.Roles.Permits(need)
}

// Session is a signed-in browser. The cookie carries the secret; the
// store keeps its hash, so a copy of the database signs nobody in.
type Session struct {
	Hash       string
	UserID     string
	CreatedAt  time.Time
	LastSeenAt time.Time
	ExpiresAt  time.Time
	User       User // filled by Tx.PortalSession
}

// Session lifetimes: a session ends at ExpiresAt whatever happens, and
// sooner when unused for IdleTimeout.
const (
	SessionTTL  = 12 * time.Hour
	IdleTimeout = 30 * time.Minute
	// portalTouchEvery: a session's last use is written at most this
	// often, so that reading pages does not write on every request.
	portalTouchEvery = time.Minute
	sessionPrefix    = "dps_"
	minPasswordRunes = 12
)

// NewUser is a request to create a portal user. An empty Password
// has one generated; an organisation user without Roles is an admin, as
// every organisation user was before roles.
type NewUser struct {
	Email          string
	Role           Role
	OrganisationID string
	Roles          auth.Roles
	Password       string
}

// CreateUser creates a portal user and returns it with its password
// (the one given, or a generated one), which is never stored in clear.
func (s *Service) CreateUser(ctx context.Context, in NewUser) (User, string, error) {
	email := normaliseEmail(in.Email)
	password, err := checkNewUser(in, email)
	if err != nil {
		return User{}, "", err
	}
	if in.Role == RoleOrganisation && in.Roles == 0 {
		in.Roles = auth.RolesOf(auth.RoleAdmin)
	}
	u := User{ID: disburse.NewID(), Email: email, PasswordHash: s.passwordCost().hash(password), Role: in.Role, OrganisationID: in.OrganisationID,
		Roles: in.Roles, CreatedAt: s.now()}
	err = s.Store.WritePortal(ctx, func(tx Tx) error {
		if u.Role == RoleOrganisation {
			if _, err := tx.Organisation(ctx, u.OrganisationID); err != nil {
				return disburse.OrNotFound(err, "organisation")
			}
		}
		err := tx.InsertPortalUser(ctx, u)
		if errors.Is(err, disburse.ErrDuplicate) {
			return disburse.Invalid("Email", email, "a portal user with this email exists already")
		}
		return err
	})
	if err != nil {
		return User{}, "", err
	}
	return u, password, nil
}

// checkNewUser holds in to the rules of a user, every failure at once,
// and returns its password: the one given, or a new one.
func checkNewUser(in NewUser, email string) (string, error) {
	var v disburse.Validation
	if v.Text(-1, "Email", in.Email) && !plausibleEmail(email) {
		v.Add(-1, "Email", in.Email, "email must look like name@example.org, at most 254 characters")
	}
	switch in.Role {
	case RoleOperator:
		if in.OrganisationID != "" {
			v.Add(-1, "Organisation", in.OrganisationID, "an operator belongs to no organisation")
		}
		if in.Roles != 0 {
			v.Add(-1, "Roles", in.Roles.String(), "an operator holds no role of an organisation")
		}
	case RoleOrganisation:
		if !disburse.ValidID(in.OrganisationID) {
			v.Add(-1, "Organisation", in.OrganisationID, "an organisation user needs the id of their organisation")
		}
	default:
		v.Add(-1, "Role", string(in.Role), "role must be operator or organisation")
	}
	password := in.Password
	if password == "" {
		password = NewPassword()
	} else {
		checkPassword(&v, password)
	}
	return password, v.Err()
}

// checkPassword holds a chosen password to the rules.
func checkPassword(v *disburse.Validation, password string) {
	if n := len([]rune(password)); n < minPasswordRunes || n > 200 || !text.Valid(password) {
		v.Add(-1, "Password", "", fmt.Sprintf("password must be %d to 200 characters, without control characters", minPasswordRunes))
	}
}

// ResetPassword gives the user with email a new generated password
// and returns it; the user's sessions stay as they are.
func (s *Service) ResetPassword(ctx context.Context, email string) (string, error) {
	password := NewPassword()
	err := s.Store.WritePortal(ctx, func(tx Tx) error {
		u, err := tx.PortalUserByEmail(ctx, normaliseEmail(email))
		if err != nil {
			return disburse.OrNotFound(err, "portal user")
		}
		return tx.SetPortalPassword(ctx, u.ID, s.passwordCost().hash(password))
	})
	return password, err
}

// normaliseEmail makes sign-in blind to case and surrounding space.
func normaliseEmail(email string) string { return strings.ToLower(strings.TrimSpace(email)) }

// plausibleEmail is a shape check, not a deliverability one: the portal
// never mails anyone.
func plausibleEmail(email string) bool {
	at := strings.LastIndexByte(email, '@')
	return len(email) <= emailMax && at > 0 && at < len(email)-1 && !strings.ContainsAny(email, " \t<>")
}

// NewPassword returns a random password of 128 bits in 22 URL-safe characters.
func NewPassword() string {
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)
}

// PasswordCost is the cost of an argon2id hash: passes over the memory,
// the memory in KiB, and the lanes.
type PasswordCost struct {
	Time    uint32
	Memory  uint32
	Threads uint8
}

// defaultPasswordCost is OWASP's password storage recommendation (a
// memory cost a busy server can afford per sign-in); each hash records
// its cost, so it can be raised without breaking stored hashes.
var defaultPasswordCost = PasswordCost{Time: 2, Memory: 19 * 1024, Threads: 1}

const argonKeyLen = 32

// HashPassword returns password's argon2id hash in the PHC string form,
// with a random salt and its cost, so it can change later.
func HashPassword(password string) string { return defaultPasswordCost.hash(password) }

func (c PasswordCost) hash(password string) string {
	salt := make([]byte, 16)
	_, _ = rand.Read(salt)
	key := argon2.IDKey([]byte(password), salt, c.Time, c.Memory, c.Threads, argonKeyLen)
	enc := base64.RawStdEncoding
	return fmt.Sprintf("$argon2id$v=%d$m=%d,t=%d,p=%d$%s$%s", argon2.Version, c.Memory, c.Time, c.Threads, enc.EncodeToString(salt), enc.EncodeToString(key))
}

// passwordCost is the cost of the hashes s makes: its PasswordCost, or
// the default.
func (s *Service) passwordCost() PasswordCost {
	if s.PasswordCost == (PasswordCost{}) {
		return defaultPasswordCost
	}
	return s.PasswordCost
}

// CheckPassword reports whether password matches hash (HashPassword's form).
func CheckPassword(hash, password string) bool {
	parts := strings.Split(hash, "$")
	if len(parts) != 6 || parts[1] != "argon2id" {
		return false
	}
	var memory uint32
	var t uint32
	var p uint8
	if _, err := fmt.Sscanf(parts[3], "m=%d,t=%d,p=%d", &memory, &t, &p); err != nil {
		return false
	}
	enc := base64.RawStdEncoding
	salt, err1 := enc.DecodeString(parts[4])
	want, err2 := enc.DecodeString(parts[5])
	if err1 != nil || err2 != nil {
		return false
	}
	got := argon2.IDKey([]byte(password), salt, t, memory, p, uint32(len(want)))
	return subtle.ConstantTimeCompare(got, want) == 1
}

// decoys holds, by cost, the hash an unknown email's password is checked
// against, so that an unknown email costs the same time as a wrong
// password. The default cost's is made at start-up.
var decoys sync.Map

func init() { decoys.Store(defaultPasswordCost, HashPassword(NewPassword())) }

// decoy returns the decoy hash of cost c.
func decoy(c PasswordCost) string {
	if h, ok := decoys.Load(c); ok {
		return h.(string)
	}
	h, _ := decoys.LoadOrStore(c, c.hash(NewPassword()))
	return h.(string)
}

// ErrSignIn is the one answer to a failed sign-in, for an unknown email
// and a wrong password alike.
var ErrSignIn = disburse.Errorf(disburse.CodeUnauthorized, "the email or the password is wrong")

// SignIn checks an email and password and starts a session, returning the
// session's secret for the cookie and the user.
func (s *Service) SignIn(ctx context.Context, email, password string) (string, User, error) {
	email = normaliseEmail(email)
	if !text.Valid(email) || !text.Valid(password) {
		return "", User{}, ErrSignIn
	}
	u, err := read(ctx, s.Store, func(tx Tx) (User, error) { return tx.PortalUserByEmail(ctx, email) })
	if errors.Is(err, disburse.ErrNotFound) {
		CheckPassword(decoy(s.passwordCost()), password)
		return "", User{}, s.signInFailed(ctx, User{Email: email})
	}
	if err != nil {
		return "", User{}, err
	}
	if !CheckPassword(u.PasswordHash, password) {
		return "", User{}, s.signInFailed(ctx, u)
	}
	secret := secrets.New(sessionPrefix)
	now := s.now()
	err = s.Store.WritePortal(ctx, func(tx Tx) error {
		if err := tx.InsertPortalSession(ctx, Session{Hash: secrets.Hash(secret), UserID: u.ID, CreatedAt: now, LastSeenAt: now, ExpiresAt: now.Add(SessionTTL)}); err != nil {
			return err
		}
		return tx.InsertAudit(ctx, disburse.NewAuditEntry(now, u.Actor(), "portal.signedIn", u.OrganisationID, u.ID, nil))
	})
	if err != nil {
		return "", User{}, err
	}
	return secret, u, nil
}

// emailMax is the longest email, in bytes (RFC 5321's path limit).
const emailMax = 254

// signInFailed writes a failed sign-in to the audit log, as by the user
// the email names (no id when it names nobody), and returns ErrSignIn.
// The email of an unknown user is kept to emailMax bytes.
func (s *Service) signInFailed(ctx context.Context, u User) error {
	if len(u.Email) > emailMax {
		u.Email = strings.ToValidUTF8(u.Email[:emailMax], "")
	}
	err := s.Store.WritePortal(ctx, func(tx Tx) error {
		return tx.InsertAudit(ctx, disburse.NewAuditEntry(s.now(), u.Actor(), "portal.signInFailed", u.OrganisationID, u.ID, nil))
	})
	if err != nil {
		return err
	}
	return ErrSignIn
}

// Actor is the user as the audit log names them.
func (u User) Actor() disburse.Actor {
	return disburse.Actor{Type: disburse.ActorPortalUser, ID: u.ID, Name: u.Email}
}

// SessionUser returns the user a session secret signs in, or
// auth.ErrUnauthorized when it is unknown, expired or idle too long. It is read
// afresh from the store on every request, so a sign-out on one replica
// ends the session on all of them.
func (s *Service) SessionUser(ctx context.Context, secret string) (User, error) {
	if !strings.HasPrefix(secret, sessionPrefix) {
		return User{}, auth.ErrUnauthorized
	}
	hash := secrets.Hash(secret)
	sess, err := read(ctx, s.Store, func(tx Tx) (Session, error) { return tx.PortalSession(ctx, hash) })
	if errors.Is(err, disburse.ErrNotFound) {
		return User{}, auth.ErrUnauthorized
	}
	if err != nil {
		return User{}, err
	}
	now := s.now()
	if !now.Before(sess.ExpiresAt) || !now.Before(sess.LastSeenAt.Add(IdleTimeout)) {
		if err := s.Store.WritePortal(ctx, func(tx Tx) error { return tx.DeletePortalSession(ctx, hash) }); err != nil {
			return User{}, err
		}
		return User{}, auth.ErrUnauthorized
	}
	if now.Sub(sess.LastSeenAt) >= portalTouchEvery {
		if err := s.Store.WritePortal(ctx, func(tx Tx) error { return tx.TouchPortalSession(ctx, hash, now) }); err != nil {
			return User{}, err
		}
	}
	return sess.User, nil
}

// SignOut ends a session at once, on every replica.
func (s *Service) SignOut(ctx context.Context, secret string) error {
	return s.Store.WritePortal(ctx, func(tx Tx) error { return tx.DeletePortalSession(ctx, secrets.Hash(secret)) })
}

// PurgeSessions deletes sessions that can no longer be used and
// returns how many it deleted.
func (s *Service) PurgeSessions(ctx context.Context) (int, error) {
	total := 0
	for ctx.Err() == nil {
		var n int
		now := s.now()
		err := s.Store.WritePortal(ctx, func(tx Tx) (err error) {
			n, err = tx.DeleteDeadPortalSessions(ctx, now, now.Add(-IdleTimeout), purgeBatchSize)
			return err
		})
		total += n
		if err != nil || n < purgeBatchSize {
			return total, err
		}
	}
	return total, nil
}
