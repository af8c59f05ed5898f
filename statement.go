package disburse

import (
	"context"
)

// Statement is a member's wallet: its balance and one entry per settled
// payment or referral leg (docs/api.md section S1.9).
type Statement struct {
	Msisdn   string
	Wallets  []Account
	Entries  []StatementEntry
	IsMember bool
}

// Statement returns the statement of msisdn. A number that is not a member
// has an empty statement, not a 404: money may be waiting for it.
func (s *Service) Statement(ctx context.Context, msisdn string) (Statement, error) {
	if !validMsisdn(msisdn) {
		return Statement{}, Invalid("Msisdn", msisdn, MsisdnMessage)
	}
	st := Statement{Msisdn: msisdn}
	err := s.Store.Read(ctx, func(tx Tx) error {
		members, err := tx.Members(ctx, []string{msisdn})
		if err != nil {
			return err
		}
		st.IsMember = len(members) > 0
		if st.Wallets, err = tx.Wallets(ctx, msisdn); err != nil {
			return err
		}
		st.Entries, err = tx.StatementEntries(ctx, msisdn)
		return err
	})
	return st, err
}

// LedgerReport is the answer of GET /admin/ledger/check.
type LedgerReport struct {
	OK       bool
	Problems []string
}

// CheckLedger audits every ledger invariant of docs/ledger.md in one snapshot.
func (s *Service) CheckLedger(ctx context.Context) (LedgerReport, error) {
	problems, err := read(ctx, s.Store, func(tx Tx) ([]string, error) { return tx.LedgerProblems(ctx) })
	return LedgerReport{OK: err == nil && len(problems) == 0, Problems: problems}, err
}
