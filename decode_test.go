package telco

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestListDecodeShapes(t *testing.T) {
	cases := []struct {
		name  string
		body  string
		sids  []string
		total int
		next  string
		err   bool
	}{
		{"documented", `{"Properties":[{"PropertySid":"P1"}],"TotalCount":1,"NextPageToken":"t"}`, []string{"P1"}, 1, "t", false},
		{"field listing name", `{"Projects":[{"PropertySid":"P1"}],"TotalCount":"7"}`, []string{"P1"}, 7, "", false},
		{"lower-case key", `{"properties":[{"PropertySid":"P1"}]}`, []string{"P1"}, 0, "", false},
		{"bare array", ` [{"PropertySid":"P1"},{"PropertySid":"P2"}]`, []string{"P1", "P2"}, 0, "", false},
		{"null array falls to the other name", `{"Properties":null,"Projects":[{"PropertySid":"P3"}]}`, []string{"P3"}, 0, "", false},
		{"odd count and token", `{"Properties":[],"TotalCount":"many","NextPageToken":42}`, []string{}, 0, "", false},
		{"no array at all", `{"TotalCount":3}`, nil, 3, "", false},
		{"array of the wrong shape", `{"Properties":{"PropertySid":"P1"}}`, nil, 0, "", true},
		{"not JSON", `<html>`, nil, 0, "", true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			l := list[Property]{shape: propertiesList}
			err := l.decodeBody([]byte(tc.body))
			if tc.err {
				require.Error(t, err)
				return
			}
			require.NoError(t, err)
			var sids []string
			if l.items != nil {
				sids = []string{}
			}
			for _, p := range l.items {
				sids = append(sids, p.PropertySid)
			}
			assert.Equal(t, tc.sids, sids)
			assert.Equal(t, tc.total, l.total)
			assert.Equal(t, tc.next, l.next)
		})
	}
}

func TestOneDecodeShapes(t *testing.T) {
	cases := []struct {
		name string
		body string
		ok   bool
		want string
	}{
		{"wrapped", `{"Number":{"Number":"61299999999","Friendly":"A"}}`, true, "A"},
		{"other documented key", `{"NumberConfiguration":{"Number":"61299999999","Friendly":"B"}}`, true, "B"},
		{"bare, whose Number is a string", `{"Number":"61299999999","Friendly":"C"}`, true, "C"},
		{"null envelope", `{"Number":null}`, false, ""},
		{"neither", `{"Other":{}}`, false, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			o := one[NumberConfig]{shape: numberShape}
			require.NoError(t, o.decodeBody([]byte(tc.body)))
			assert.Equal(t, tc.ok, o.ok)
			assert.Equal(t, tc.want, o.val.Friendly)
		})
	}
	o := one[Message]{shape: messageShape}
	assert.Error(t, o.decodeBody([]byte(`[1]`)))
}

// FuzzListDecode: any body decodes or fails without panicking, and a
// decoded page never holds more items than the body could.
func FuzzListDecode(f *testing.F) {
	for _, s := range []string{
		`{"Properties":[{"PropertySid":"P1"}],"TotalCount":1}`, `[{"PropertySid":"P1"}]`,
		`{"Projects":null}`, `{"Properties":{}}`, `{"TotalCount":"x","NextPageToken":[]}`, `null`, ``,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		l := list[Property]{shape: propertiesList}
		if l.decodeBody(b) != nil {
			return
		}
		if len(l.items) > len(b) {
			t.Fatalf("%d items from %d bytes", len(l.items), len(b))
		}
		o := one[Property]{shape: propertyShape}
		_ = o.decodeBody(b)
	})
}
