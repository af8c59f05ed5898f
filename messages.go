package disburse

import "time"

// pushMessage tells a member that money arrived in their wallet.
func pushMessage(org Organisation, amount Money) string {
	return "You have received " + org.Currency + " " + amount.String() + " from " + org.Name + "."
}

// smsMessages returns the text that tells a non-member who sent them
// money, how much, and by when they must register to receive it (docs/api.md
// section S6), as a function of the amount: the date is formatted once for
// all of a submit's pending legs.
func smsMessages(org Organisation, due time.Time) func(Money) string {
	head := org.Name + " sent you " + org.Currency + " "
	tail := ". Register with Disburse by " + due.UTC().Format("2 January 2006") + " to receive it."
	return func(amount Money) string { return head + amount.String() + tail }
}
