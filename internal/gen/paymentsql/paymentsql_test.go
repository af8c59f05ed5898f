package paymentsql

import "testing"

func TestSnake(t *testing.T) {
	for in, want := range map[string]string{
		"ID": "id", "BatchID": "batch_id", "OrganisationID": "organisation_id", "ExternalID": "external_id",
		"ReversalDueAt": "reversal_due_at", "IsMember": "is_member", "Msisdn": "msisdn",
	} {
		if got := snake(in); got != want {
			t.Errorf("snake(%q) = %q, want %q", in, got, want)
		}
	}
}
