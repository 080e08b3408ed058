package telco

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestSamePage(t *testing.T) {
	t.Parallel()
	m1, m2 := Message{MessageSid: "MG1", Text: "a"}, Message{MessageSid: "MG2", Text: "b"}
	p1, p2 := Property{PropertySid: "PR1"}, Property{PropertySid: "PR2"}
	l1, l2 := OnlineLogin{Email: "a@example.com"}, OnlineLogin{Email: "b@example.com"}
	cases := []struct {
		name string
		same bool
		got  bool
	}{
		{"messages equal", true, samePage([]Message{m1, m2}, []Message{m1, m2})},
		{"messages differ in one field", false, samePage([]Message{m1, m2}, []Message{m1, {MessageSid: "MG2", Text: "c"}})},
		{"messages differ in length", false, samePage([]Message{m1}, []Message{m1, m2})},
		{"properties equal", true, samePage([]Property{p1, p2}, []Property{p1, p2})},
		{"properties differ", false, samePage([]Property{p1}, []Property{p2})},
		{"other type, equal", true, samePage([]OnlineLogin{l1, l2}, []OnlineLogin{l1, l2})},
		{"other type, first item differs", false, samePage([]OnlineLogin{l1, l2}, []OnlineLogin{l2, l2})},
		{"other type, a later item differs", false, samePage([]OnlineLogin{l1, l1}, []OnlineLogin{l1, l2})},
		{"empty", true, samePage([]OnlineLogin{}, []OnlineLogin{})},
	}
	for _, c := range cases {
		assert.Equal(t, c.same, c.got, c.name)
	}
}
