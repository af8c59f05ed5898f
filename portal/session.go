package portal

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"time"

	"github.com/disburse/disburse"
	"github.com/disburse/disburse/auth"
	"github.com/disburse/disburse/internal/clientaddr"
	"github.com/disburse/disburse/portal/backoffice"
)

// cookieName holds the session's secret; the store keeps only its hash.
const cookieName = "disburse_portal"

type userKey struct{}

// user is the signed-in user of a request that passed signedIn.
func user(r *http.Request) backoffice.User {
	u, _ := r.Context().Value(userKey{}).(backoffice.User)
	return u
}

// signedIn lets a request with a live session through, its user in the
// context; any other goes to the sign-in page (a GET) or gets 401.
func (p *portal) signedIn(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c, _ := r.Cookie(cookieName)
		u, err := backoffice.User{}, error(auth.ErrUnauthorized)
		if c != nil {
			u, err = p.office.SessionUser(r.Context(), c.Value)
		}
		if err != nil {
			if disburse.ErrorCode(err) != disburse.CodeUnauthorized {
				p.handle(func(http.ResponseWriter, *http.Request) error { return err }).ServeHTTP(w, r)
				return
			}
			if c != nil {
				clearCookie(w, r)
			}
			if r.Method == http.MethodGet {
				http.Redirect(w, r, "/portal/signin?next="+url.QueryEscape(r.URL.RequestURI()), http.StatusSeeOther)
				return
			}
			http.Error(w, "sign in first", http.StatusUnauthorized)
			return
		}
		ctx := disburse.WithActor(context.WithValue(r.Context(), userKey{}, u), u.Actor())
		next.ServeHTTP(w, r.WithContext(ctx))
	})
}

// operator answers 404 to anyone but an operator: an organisation user
// learns nothing of the operator's pages.
func (p *portal) operator(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if user(r).Role != backoffice.RoleOperator {
			p.handle(func(http.ResponseWriter, *http.Request) error { return notFound }).ServeHTTP(w, r)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// permits refuses, with 403, a user whose roles do not permit need
// (backoffice.User.Permits: an operator passes, the handler deciding).
func (p *portal) permits(need auth.Role, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if u := user(r); !u.Permits(need) {
			p.handle(func(http.ResponseWriter, *http.Request) error { return auth.Forbidden(need, u.Roles) }).ServeHTTP(w, r)
			return
		}
		next.ServeHTTP(w, r)
	})
}

var notFound = disburse.Errorf(disburse.CodeNotFound, "not found")

func (p *portal) signInPage(w http.ResponseWriter, r *http.Request) error {
	p.render(w, r, http.StatusOK, "signin", page{Title: "Sign in", Next: safeNext(r.URL.Query().Get("next"))})
	return nil
}

// signIn checks the rate limits first, then the password; every failure
// gets the same answer, so the page tells nobody whether an email exists.
// Every sign-in spends the client address's budget before the database
// is asked; failed ones count toward the lockouts (limiter.go).
func (p *portal) signIn(w http.ResponseWriter, r *http.Request) error {
	if !p.spendAddress(w, r, "signin", page{Title: "Sign in", Next: Prefix}) {
		return nil
	}
	client := clientaddr.Of(r)
	email, password := r.PostFormValue("email"), r.PostFormValue("password")
	next := safeNext(r.PostFormValue("next"))
	if !p.limiter.allow(email, client) {
		p.countLimited(SignInLimit)
		w.Header().Set("Retry-After", "60")
		p.render(w, r, http.StatusTooManyRequests, "signin", page{Title: "Sign in", Next: next, Email: email,
			Errors: []string{"Too many failed sign-ins. Wait a minute and try again."}})
		return nil
	}
	secret, _, err := p.office.SignIn(r.Context(), email, password)
	if errors.Is(err, backoffice.ErrSignIn) {
		p.limiter.fail(email, client)
		p.render(w, r, http.StatusUnauthorized, "signin", page{Title: "Sign in", Next: next, Email: email,
			Errors: []string{"The email or the password is wrong."}})
		return nil
	}
	if err != nil {
		return err
	}
	setSession(w, r, secret)
	http.Redirect(w, r, next, http.StatusSeeOther)
	return nil
}

// spendAddress spends the client address's budget, which every sign-in
// and every use of an invitation spends before the database is asked.
// Past it, it draws the page name with pg and a 429, and returns false.
func (p *portal) spendAddress(w http.ResponseWriter, r *http.Request, name string, pg page) bool {
	if p.addresses == nil {
		return true
	}
	d := p.addresses.Allow(clientaddr.Of(r))
	d.SetHeaders(w.Header())
	if d.Allowed {
		return true
	}
	p.countLimited(p.addresses.Name())
	pg.Errors = []string{"Too many sign-ins from your address. Wait a minute and try again."}
	p.render(w, r, http.StatusTooManyRequests, name, pg)
	return false
}

// setSession gives the browser the session's secret in its cookie.
func setSession(w http.ResponseWriter, r *http.Request, secret string) {
	http.SetCookie(w, &http.Cookie{
		Name: cookieName, Value: secret, Path: "/portal/", HttpOnly: true, Secure: clientaddr.HTTPS(r),
		SameSite: http.SameSiteLaxMode, Expires: time.Now().Add(backoffice.SessionTTL),
	})
}

// signOut ends the session in the store, so it ends at once everywhere.
func (p *portal) signOut(w http.ResponseWriter, r *http.Request) error {
	if c, err := r.Cookie(cookieName); err == nil {
		if err := p.office.SignOut(r.Context(), c.Value); err != nil {
			return err
		}
	}
	clearCookie(w, r)
	http.Redirect(w, r, "/portal/signin", http.StatusSeeOther)
	return nil
}

func clearCookie(w http.ResponseWriter, r *http.Request) {
	http.SetCookie(w, &http.Cookie{Name: cookieName, Value: "", Path: "/portal/", HttpOnly: true, Secure: clientaddr.HTTPS(r),
		SameSite: http.SameSiteLaxMode, MaxAge: -1})
}

// countLimited tells the metrics of a sign-in refused by the named limit.
func (p *portal) countLimited(limit string) {
	if p.limited != nil {
		p.limited(limit)
	}
}
