package disburse

import "time"

// pushMessage tells a member that money arrived in their wallet.
func pushMessage(org Organisation, amount Money) string {
	head, tail := pushParts(org)
	return head + amount.String() + tail
}

// pushParts are the push's text before and after the amount: a submit's
// statements write the amount between them (Tx.SubmitPayments).
func pushParts(org Organisation) (head, tail string) {
	return "You have received " + org.Currency + " ", " from " + org.Name + "."
}

// smsParts are the text that tells a non-member who sent them money, how
// much, and by when they must register to receive it (docs/api.md section
// S6), before and after the amount: a submit's statements write the amount
// between them (Tx.SubmitPayments), the date formatted once.
func smsParts(org Organisation, due time.Time) (head, tail string) {
	return org.Name + " sent you " + org.Currency + " ", ". Register with Disburse by " + due.UTC().Format("2 January 2006") + " to receive it."
}
