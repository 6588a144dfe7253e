package models

import (
	"errors"
	"fmt"
	"time"
)

// ErrDateTime is returned for a JSON value that is not an RFC 3339 time.
var ErrDateTime = errors.New("models: invalid date-time")

// dateTimeFormat is how upstream writes times: RFC 3339 with milliseconds.
const dateTimeFormat = "2006-01-02T15:04:05.000Z07:00"

// DateTime is a time.Time that reads and writes JSON the way upstream
// does: RFC 3339 in UTC with milliseconds. Like upstream, the zero value is
// written as "0001-01-01T00:00:00.000Z" (omitempty never drops a struct).
type DateTime time.Time

// Time returns t as a time.Time.
func (t DateTime) Time() time.Time { return time.Time(t) }

// IsZero reports whether t is the zero time.
func (t DateTime) IsZero() bool { return time.Time(t).IsZero() }

// MarshalJSON writes t in UTC with millisecond precision.
func (t DateTime) MarshalJSON() ([]byte, error) {
	b := make([]byte, 0, len(dateTimeFormat)+2)
	b = append(b, '"')
	b = time.Time(t).UTC().AppendFormat(b, dateTimeFormat)
	return append(b, '"'), nil
}

// UnmarshalJSON reads an RFC 3339 time with any fractional precision;
// null and "" leave the zero time.
func (t *DateTime) UnmarshalJSON(b []byte) error {
	s := string(b)
	if s == "null" || s == `""` {
		*t = DateTime{}
		return nil
	}
	if len(s) < 2 || s[0] != '"' || s[len(s)-1] != '"' {
		return fmt.Errorf("%w: %.40q", ErrDateTime, s)
	}
	v, err := time.Parse(time.RFC3339Nano, s[1:len(s)-1])
	if err != nil {
		return fmt.Errorf("%w: %w", ErrDateTime, err)
	}
	*t = DateTime(v)
	return nil
}
