package backoffice

import (
	"context"

	"github.com/disburse/disburse"
)

// draftLegsIn counts a DRAFT batch of org's legs by what a submit would
// do with each: by the live members, or a sandbox's by its own
// (docs/sandbox.md).
func draftLegsIn(ctx context.Context, tx Tx, org disburse.Organisation, batchID string) (DraftLegs, error) {
	if org.Sandbox {
		return tx.SandboxDraftLegs(ctx, batchID)
	}
	return tx.DraftLegs(ctx, batchID)
}
