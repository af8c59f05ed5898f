package disburse

// Field names a field of a request as a failure names it (docs/api.md section
// 2): its JSON name capitalised, "Msisdn", "ExternalId".
type Field string

// The fields of a batch's and an add's bodies whose wrong types the use
// cases report (a payment's are beside PaymentInput).
const (
	fieldName          Field = "Name"
	fieldExternalID    Field = "ExternalId"
	fieldAccountID     Field = "AccountId"
	FieldClearExisting Field = "ClearExisting"
	fieldPayments      Field = "Payments"
)

// WrongTypes are the fields of one input that the client sent as a value
// their type cannot hold (a number for msisdn, a string for amount), as
// the reader of the request found them. Such a field holds its zero value
// and fails with its WrongType instead of its own checks, beside the checks
// of the other fields, so that every failure of a request comes back in
// one array (docs/api.md section 2). Nil for nearly every input.
type WrongTypes map[Field]WrongType

// WrongType is one field's value of the wrong type.
type WrongType struct {
	Value   string // the value as a failure shows it (fieldValue)
	Message string // what the field takes: "msisdn must be a string"
	// Null: the value was null where a number was due. A required field
	// fails with it; an optional one is as good as left out.
	Null bool
}

// report adds field's WrongType, if there is one, as a failure at index
// (-1: not a payment's), and reports whether it did.
func (w WrongTypes) report(v *Validation, index int, field Field) bool {
	t, ok := w[field]
	if ok {
		v.Add(index, string(field), t.Value, t.Message)
	}
	return ok
}

// sent reports whether field came with a value of the wrong type other
// than null.
func (w WrongTypes) sent(field Field) bool {
	t, ok := w[field]
	return ok && !t.Null
}
