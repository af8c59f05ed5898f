package operators

// Actions are the audit log's actions, as docs/api.md section 7 lists
// them; the portal offers them as its audit page's filter.
var Actions = []string{
	"organisation.created",
	"settings.changed",
	"account.created",
	"account.deposited",
	"apiKey.issued",
	"apiKey.revoked",
	"member.registered",
	"batch.created",
	"batch.updated",
	"payments.added",
	"payment.deleted",
	"batch.submitted",
	"batch.cancelled",
	"webhook.created",
	"webhook.changed",
	"webhook.secretRotated",
	"webhook.deleted",
	"webhook.disabled",
	"portal.signedIn",
	"portal.signInFailed",
	"portalUser.invited",
	"portalUser.invitationWithdrawn",
	"portalUser.joined",
	"portalUser.rolesChanged",
	"portalUser.removed",
	"operatorToken.created",
	"operatorToken.revoked",
}
