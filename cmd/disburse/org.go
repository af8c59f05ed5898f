package main

import (
	"context"
	"flag"
	"fmt"

	"github.com/disburse/disburse"
)

// orgCreate creates an organisation from the command line, the way an
// operator bootstraps a deployment before the portal exists.
func orgCreate(ctx context.Context, args []string) error {
	var c config
	fs := flag.NewFlagSet("org create", flag.ContinueOnError)
	c.flags(fs)
	name := fs.String("name", "", "organisation name (required)")
	deposit := fs.String("deposit", "0", "amount to deposit into its default payout account")
	referrals := fs.Bool("referrals", false, "enable referrals")
	if err := fs.Parse(args); err != nil {
		return err
	}
	store, err := openStore(ctx, c.DatabaseURL)
	if err != nil {
		return err
	}
	defer store.Close()
	svc := disburse.NewService(store)
	org, key, err := createFundedOrg(ctx, svc, *name, *deposit, *referrals)
	if err != nil {
		return err
	}
	fmt.Printf("organisation %s (%s)\napi key      %s\n", org.ID, org.Name, key)
	return nil
}

// createFundedOrg creates an organisation, deposits into its default payout
// account when deposit is not zero, and issues an API key.
func createFundedOrg(ctx context.Context, svc *disburse.Service, name, deposit string, referrals bool) (disburse.Organisation, string, error) {
	org, accounts, err := svc.CreateOrganisation(ctx, disburse.NewOrganisation{Name: name, ReferralsEnabled: referrals})
	if err != nil {
		return org, "", err
	}
	if deposit != "0" {
		if _, err := svc.Deposit(ctx, accounts[0].ID, deposit, "opening float"); err != nil {
			return org, "", err
		}
	}
	_, key, err := svc.CreateAPIKey(ctx, org.ID)
	return org, key, err
}

// demo gives a newcomer something to call: an organisation with float, its
// API key, and an admin token when none was configured.
func demo(ctx context.Context, svc *disburse.Service, c *config) error {
	if c.AdminToken == "" {
		c.AdminToken = disburse.NewSecret("adm_")
	}
	org, key, err := createFundedOrg(ctx, svc, "Demo Organisation", "1000000", true)
	if err != nil {
		return err
	}
	fmt.Printf("demo organisation %s with 1,000,000.00 of float\n", org.ID)
	fmt.Printf("  export API_KEY=%s\n  export ADMIN_TOKEN=%s\n", key, c.AdminToken)
	return nil
}
