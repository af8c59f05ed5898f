package storetest

import (
	"context"
	"testing"
	"time"

	"github.com/disburse/disburse"
)

func testMember(t *testing.T, s disburse.Store) {
	ctx := t.Context()
	m := disburse.Member{Msisdn: msisdnKE, Firstname: "Wanjiru", Lastname: "Kamau", AppInstalled: true, RegisteredAt: t0}
	var added, again map[string]bool
	write(t, s, func(tx disburse.Tx) (err error) { added, err = tx.InsertMembers(ctx, []disburse.Member{m}); return err })
	other := m
	other.Firstname, other.AppInstalled, other.RegisteredAt = "Someone", false, at(time.Hour)
	uk := disburse.Member{Msisdn: msisdnUK, Firstname: "Ann", RegisteredAt: at(time.Hour)}
	write(t, s, func(tx disburse.Tx) (err error) {
		again, err = tx.InsertMembers(ctx, []disburse.Member{other, uk})
		return err
	})
	same(t, "InsertMembers", map[string]bool{msisdnKE: true}, added)
	same(t, "InsertMembers with a member already", map[string]bool{msisdnUK: true}, again)
	same(t, "Member added beside one that was a member", uk, get(t, s, func(tx disburse.Tx) (disburse.Member, error) { return member(tx, msisdnUK) }))
	same(t, "Member (unchanged by the duplicate)", m, get(t, s, func(tx disburse.Tx) (disburse.Member, error) { return member(tx, msisdnKE) }))
	notFound(t, s, "Member", func(tx disburse.Tx) error { _, err := member(tx, msisdnKE2); return err })
}

func testMembers(t *testing.T, s disburse.Store) {
	ctx := t.Context()
	a := disburse.Member{Msisdn: msisdnKE, Firstname: "A", RegisteredAt: t0}
	b := disburse.Member{Msisdn: msisdnUK, Lastname: "B", AppInstalled: true, RegisteredAt: at(time.Second)}
	write(t, s, func(tx disburse.Tx) error {
		for _, m := range []disburse.Member{a, b, {Msisdn: msisdnKE3, RegisteredAt: t0}} {
			if _, err := tx.InsertMembers(ctx, []disburse.Member{m}); err != nil {
				return err
			}
		}
		return nil
	})
	got := get(t, s, func(tx disburse.Tx) (map[string]disburse.Member, error) {
		return tx.Members(ctx, []string{msisdnKE, msisdnKE2, msisdnUK, msisdnKE})
	})
	same(t, "Members", map[string]disburse.Member{msisdnKE: a, msisdnUK: b}, got)
	none := get(t, s, func(tx disburse.Tx) (map[string]disburse.Member, error) { return tx.Members(ctx, nil) })
	if len(none) != 0 {
		t.Errorf("Members of nobody = %v", none)
	}
}

// member reads one member through Members; none is ErrNotFound.
func member(tx disburse.Tx, msisdn string) (disburse.Member, error) {
	ms, err := tx.Members(context.Background(), []string{msisdn})
	m, ok := ms[msisdn]
	if err == nil && !ok {
		err = disburse.ErrNotFound
	}
	return m, err
}
