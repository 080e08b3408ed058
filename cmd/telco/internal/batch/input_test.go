package batch

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/telcosdk/telco/internal/smswire"
)

// Every field of internal/smswire's table is a column and a JSON key of a
// batch file, set by the table's own setter: a field added there is read
// here with no change.
func TestEveryWireFieldIsAColumn(t *testing.T) {
	t.Parallel()
	sample := func(f smswire.Field) string {
		switch f.Kind {
		case smswire.UnixSeconds:
			return "1900000000"
		case smswire.Bool:
			return "false"
		}
		return "v-" + f.Name
	}
	for _, f := range smswire.Fields() {
		lines, err := Read(strings.NewReader(strings.ToLower(f.Name)+"\n"+sample(f)+"\n"), "csv", "in.csv", nil)
		require.NoError(t, err, f.Name)
		assert.Equal(t, sample(f), f.Get(&lines[0].Params), "CSV column %s", f.Name)

		raw := `"` + sample(f) + `"` // a string for any field, as in CSV
		lines, err = Read(strings.NewReader(`{"`+f.Name+`":`+raw+`}`), "jsonl", "in.jsonl", nil)
		require.NoError(t, err, f.Name)
		assert.Equal(t, sample(f), f.Get(&lines[0].Params), "JSON key %s", f.Name)
	}
	assert.Len(t, FieldNames(), len(smswire.Fields()))
}

// The tool's conveniences around the table: a byte-order mark and blanks
// around a header, a Schedule in RFC 3339 or in the user's zone, strings
// for a Schedule and a DeliveryReceipt in JSON, a webhook method in any
// case (smswire's rule).
func TestBatchInputConveniences(t *testing.T) {
	t.Parallel()
	syd, err := time.LoadLocation("Australia/Sydney")
	require.NoError(t, err)
	in := "\uFEFF to , TEXT,schedule,DeliveryReceipt,WebhookMethod\n" +
		"+61400000001,a,2030-01-02 03:04,0,post\n" +
		"+61400000002,b,2030-01-02T03:04:05+10:00,,\n" +
		"+61400000003,c,1900000000,1,GET\n"
	lines, err := Read(strings.NewReader(in), "", "in.csv", syd)
	require.NoError(t, err)
	require.Len(t, lines, 3)
	assert.Equal(t, "+61400000001", lines[0].Params.To)
	assert.True(t, lines[0].Params.Schedule.Equal(time.Date(2030, 1, 2, 3, 4, 0, 0, syd)), "read in the zone given")
	require.NotNil(t, lines[0].Params.DeliveryReceipt)
	assert.False(t, *lines[0].Params.DeliveryReceipt)
	assert.Equal(t, "POST", lines[0].Params.WebhookMethod)
	assert.Equal(t, int64(1893517445), lines[1].Params.Schedule.Unix())
	assert.Nil(t, lines[1].Params.DeliveryReceipt, "empty: the service's default")
	assert.Equal(t, int64(1900000000), lines[2].Params.Schedule.Unix())

	lines, err = Read(strings.NewReader("\uFEFF"+`{"to":"+61400000001","Schedule":"2030-01-02 03:04","deliveryreceipt":"false"}`+"\n"+
		`{"To":"+61400000002","Schedule":1900000000,"DeliveryReceipt":true,"Text":null}`), "", "-", syd)
	require.NoError(t, err)
	require.Len(t, lines, 2)
	assert.True(t, lines[0].Params.Schedule.Equal(time.Date(2030, 1, 2, 3, 4, 0, 0, syd)))
	assert.False(t, *lines[0].Params.DeliveryReceipt)
	assert.True(t, *lines[1].Params.DeliveryReceipt)
}

// What the table refuses, and what the layer adds, is refused naming the
// line and the field.
func TestBatchInputRefusals(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ name, in, want string }{
		{"unknown column lists the table", "To,Txt\n+61400000001,hi\n", `unknown column "Txt" (known: From, To, Text, Schedule, DeliveryReceipt, DeliveryReceiptWebhookUri,`},
		{"two columns for one field", "To,to\n+61400000001,+61400000002\n", "two columns name To"},
		{"receipt not a boolean", "To,DeliveryReceipt\n+61400000001,perhaps\n", `line 2: field "DeliveryReceipt": "perhaps" is not true or false`},
		{"schedule not a time", `{"To":"+61400000001","Schedule":"soon"}`, `line 1: the Schedule value "soon"`},
		{"schedule a fraction", `{"To":"+61400000001","Schedule":1.5}`, `line 1: field "Schedule" must be a whole number of Unix seconds, not 1.5`},
		{"one field twice", `{"To":"+61400000001","to":"+61400000002"}`, `field "To" given twice`},
		{"unknown key", `{"To":"+61400000001","Txt":"hi"}`, `unknown field "Txt" (known: From, To,`},
		{"number for text", `[{"To":"+61400000001","Text":7}]`, `array element 1: field "Text" must be a JSON string, not 7`},
	} {
		_, err := Read(strings.NewReader(tc.in), "", "in", nil)
		var ie *InputError
		require.ErrorAs(t, err, &ie, tc.name)
		assert.Contains(t, err.Error(), tc.want, tc.name)
	}
}
