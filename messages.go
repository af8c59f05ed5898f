package disburse

import "time"

// pushMessage tells a member that money arrived in their wallet.
func pushMessage(org Organisation, amount Money) string {
	return "You have received " + org.Currency + " " + amount.String() + " from " + org.Name + "."
}

// smsMessage tells a non-member who sent them money, how much, and by when
// they must register to receive it (spec section 6).
func smsMessage(org Organisation, amount Money, due time.Time) string {
	return org.Name + " sent you " + org.Currency + " " + amount.String() +
		". Register with Disburse by " + due.UTC().Format("2 January 2006") + " to receive it."
}
