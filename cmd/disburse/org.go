package main

import (
	"context"
	"errors"
	"flag"
	"fmt"

	"github.com/disburse/disburse"
	"github.com/disburse/disburse/auth"
	"github.com/disburse/disburse/internal/secrets"
	"github.com/disburse/disburse/organisations"
	"github.com/disburse/disburse/portal/backoffice"
)

// orgCreate creates an organisation from the command line, the way an
// operator bootstraps a deployment before the portal exists.
func orgCreate(ctx context.Context, args []string) error {
	var c config
	fs := flag.NewFlagSet("org create", flag.ContinueOnError)
	c.databaseFlag(fs)
	name := fs.String("name", "", "organisation name (required)")
	deposit := fs.String("deposit", "0", "amount to deposit into its default payout account, at most 2 decimals; 0: none")
	referrals := fs.Bool("referrals", false, "enable referrals")
	sandbox := fs.Bool("sandbox", false, "a sandbox organisation: test keys (dak_test_), its own ledger scope and payees (docs/sandbox.md)")
	if err := parse(fs, args); err != nil {
		return err
	}
	amount, err := depositAmount(*deposit)
	if err != nil {
		return err
	}
	store, err := openStore(ctx, c.DatabaseURL)
	if err != nil {
		return err
	}
	defer store.Close()
	svc := disburse.NewService(store)
	org, key, err := createFundedOrg(ctx, svc, auth.New(store.Auth(), svc), organisations.NewOrganisation{Name: *name, ReferralsEnabled: *referrals, Sandbox: *sandbox}, amount)
	if err != nil {
		return err
	}
	kind := ""
	if org.Sandbox {
		kind = ", sandbox"
	}
	fmt.Printf("organisation %s (%s%s)\napi key      %s\n", org.ID, org.Name, kind, key)
	return nil
}

// depositAmount checks --deposit before anything is created, so that a bad
// amount leaves no organisation behind. Zero means no deposit.
func depositAmount(text string) (disburse.Money, error) {
	m, ok := disburse.ParseMoney(text)
	if !ok {
		return 0, fmt.Errorf("--deposit %q: want an amount with at most 2 decimal places, such as 5000 or 5000.50", text)
	}
	return m, nil
}

// createFundedOrg creates an organisation, deposits into its default payout
// account when deposit is not zero, and issues an API key through keys.
func createFundedOrg(ctx context.Context, svc *disburse.Service, keys *auth.Service, in organisations.NewOrganisation, deposit disburse.Money) (disburse.Organisation, string, error) {
	org, accounts, err := organisations.CreateBy(ctx, svc, disburse.CommandLine, in)
	if err != nil {
		return org, "", err
	}
	if deposit != 0 {
		if _, err := svc.DepositBy(ctx, disburse.CommandLine, accounts[0].ID, deposit.String(), "opening float"); err != nil {
			return org, "", fmt.Errorf("organisation %s created, but its deposit failed: %w", org.ID, err)
		}
	}
	_, key, err := keys.CreateAPIKeyBy(ctx, disburse.CommandLine, org.ID, auth.RoleAdmin)
	return org, key, err
}

// demoName names the organisation serve --demo makes.
const demoName = "Demo Organisation"

// demo gives a newcomer something to call: an organisation with float, its
// API key, an admin token when none was configured, and portal users.
func demo(ctx context.Context, svc *disburse.Service, keys *auth.Service, office *backoffice.Service, c *config) error {
	if c.AdminToken == "" {
		c.AdminToken = secrets.New("adm_")
	}
	// Once per database: a restart with --demo issues a new key for the
	// organisation it made before (keys are kept only as hashes).
	var org disburse.Organisation
	err := svc.Store.Read(ctx, func(tx disburse.Tx) (err error) {
		org, err = tx.OrganisationByName(ctx, demoName)
		return err
	})
	var key string
	switch {
	case errors.Is(err, disburse.ErrNotFound):
		if org, key, err = createFundedOrg(ctx, svc, keys, organisations.NewOrganisation{Name: demoName, ReferralsEnabled: true}, 1_000_000*100); err != nil {
			return err
		}
		fmt.Printf("demo organisation %s with 1,000,000.00 of float\n", org.ID)
	case err != nil:
		return err
	default:
		if _, key, err = keys.CreateAPIKeyBy(ctx, disburse.CommandLine, org.ID, auth.RoleAdmin); err != nil {
			return err
		}
		fmt.Printf("demo organisation %s (made at an earlier start), with a new API key\n", org.ID)
	}
	fmt.Printf("  export API_KEY=%s\n  export ADMIN_TOKEN=%s\n", key, c.AdminToken)
	return demoPortalUsers(ctx, office, org.ID, c.Listen)
}
