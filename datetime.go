package disburse

// DateTimeLayout is how the service writes a date-time (docs/api.md
// section 1): UTC, seven fractional digits, no offset. The API's JSON and
// the export of a batch's results (docs/api.md section 4.4) both write it.
const DateTimeLayout = "2006-01-02T15:04:05.0000000"
