package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/disburse/disburse"
	"github.com/disburse/disburse/auth"
	"github.com/disburse/disburse/portal/backoffice"
)

// userCreate creates a portal user and prints the password once: a
// generated one, or with --password-stdin the first line of standard input.
func userCreate(ctx context.Context, args []string, stdin io.Reader, stdout io.Writer) error {
	var c config
	fs := flag.NewFlagSet("user create", flag.ContinueOnError)
	c.databaseFlag(fs)
	email := fs.String("email", "", "the user's email, their sign-in name (required)")
	var roles roleFlag
	fs.Var(&roles, "role", "operator (the whole service), or the user's roles in their organisation: viewer, maker, approver, admin; "+
		"repeat it or join roles with commas (organisation means admin)")
	org := fs.String("organisation", "", "the organisation id of an organisation user")
	fromStdin := fs.Bool("password-stdin", false, "read the password from the first line of standard input instead of generating one")
	if err := parse(fs, args); err != nil {
		return err
	}
	kind, orgRoles, err := roles.parse()
	if err != nil {
		return err
	}
	var password string
	if *fromStdin {
		line, err := bufio.NewReader(stdin).ReadString('\n')
		if err != nil && !errors.Is(err, io.EOF) {
			return fmt.Errorf("reading the password: %w", err)
		}
		if password = strings.TrimRight(line, "\r\n"); password == "" {
			return fmt.Errorf("--password-stdin: standard input held no password")
		}
	}
	store, err := openStore(ctx, c.DatabaseURL)
	if err != nil {
		return err
	}
	defer store.Close()
	office := backoffice.NewService(store)
	u, password, err := office.CreateUser(ctx, backoffice.NewUser{Email: *email, Role: kind, OrganisationID: *org, Roles: orgRoles, Password: password})
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "portal user %s (%s)\n", u.Email, userKind(u))
	if !*fromStdin {
		fmt.Fprintf(stdout, "password    %s\n(shown this once; only its hash is stored)\n", password)
	}
	return nil
}

// runUser dispatches `disburse user ...`.
func runUser(ctx context.Context, args []string) error {
	if len(args) < 1 || args[0] != "create" {
		return fmt.Errorf("usage: disburse user create --email EMAIL --role operator|viewer|maker|approver|admin[,...] [--organisation ID] [--password-stdin]")
	}
	return userCreate(ctx, args[1:], os.Stdin, os.Stdout)
}

// Demo portal users, made by serve --demo once per database and given a
// new password at each start (passwords are kept only as hashes).
const (
	demoOperatorEmail     = "operator@demo.example"
	demoOrganisationEmail = "payouts@demo.example"
)

// demoPortalUsers makes or refreshes the demo's two portal users and
// prints how to sign in.
func demoPortalUsers(ctx context.Context, office *backoffice.Service, orgID, listen string) error {
	fmt.Printf("portal http://%s/portal/\n", listen)
	for _, u := range []backoffice.NewUser{
		{Email: demoOperatorEmail, Role: backoffice.RoleOperator},
		{Email: demoOrganisationEmail, Role: backoffice.RoleOrganisation, OrganisationID: orgID, Roles: auth.RolesOf(auth.RoleAdmin)},
	} {
		_, password, err := office.CreateUser(ctx, u)
		if disburse.ErrorCode(err) == disburse.CodeInvalid {
			// Made at an earlier start: a new password for this one.
			password, err = office.ResetPassword(ctx, u.Email)
		}
		if err != nil {
			return err
		}
		fmt.Printf("  sign in as %-24s password %s   (%s)\n", u.Email, password, userKind(backoffice.User{Role: u.Role, Roles: u.Roles}))
	}
	return nil
}

// roleFlag collects --role, repeated or joined by commas.
type roleFlag []string

func (f *roleFlag) String() string { return strings.Join(*f, ",") }

func (f *roleFlag) Set(v string) error {
	*f = append(*f, strings.Split(v, ",")...)
	return nil
}

// parse reads the roles: operator alone, or organisation roles, where
// organisation (the value before roles existed) means admin, so that
// scripts written then make the user they made then.
func (f roleFlag) parse() (backoffice.Role, auth.Roles, error) {
	var roles auth.Roles
	operator := false
	for _, name := range f {
		switch name = strings.TrimSpace(name); name {
		case "":
		case string(backoffice.RoleOperator):
			operator = true
		case string(backoffice.RoleOrganisation):
			roles |= auth.RolesOf(auth.RoleAdmin)
		default:
			r, ok := auth.ParseRole(name)
			if !ok {
				return "", 0, fmt.Errorf("--role %s: a role is operator, viewer, maker, approver or admin", name)
			}
			roles |= auth.RolesOf(r)
		}
	}
	switch {
	case operator && roles != 0:
		return "", 0, fmt.Errorf("--role: an operator holds no role of an organisation")
	case operator:
		return backoffice.RoleOperator, 0, nil
	case roles == 0:
		return "", 0, fmt.Errorf("--role is required: operator, or the user's roles in their organisation (viewer, maker, approver, admin)")
	}
	return backoffice.RoleOrganisation, roles, nil
}

// userKind says what a user is: an operator, or their roles.
func userKind(u backoffice.User) string {
	if u.Role == backoffice.RoleOperator {
		return string(u.Role)
	}
	return "organisation: " + u.Roles.String()
}
