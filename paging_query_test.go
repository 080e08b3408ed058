package telco

import (
	"fmt"
	"testing"

	"github.com/google/go-querystring/query"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// reflectQuery is the general path the typed encoders replace.
func reflectQuery(t *testing.T, q any) string {
	v, err := query.Values(q)
	require.NoError(t, err)
	return v.Encode()
}

func TestTypedQueriesMatchGoQuerystring(t *testing.T) {
	t.Parallel()
	lists := []ListParams{{}, {Count: 50}, {Skip: 7}, {Count: 200, Skip: 400}, {Count: -1, Skip: -2}}
	for _, lp := range lists {
		got, err := encodeQuery(&lp)
		require.NoError(t, err)
		assert.Equal(t, reflectQuery(t, &lp), got, "%+v", lp)
	}
	finds := []wireFindMessages{
		{},
		{DateFrom: 1577836800, DateTo: 1577923200},
		{DateFrom: -5, DateTo: 1, Status: MessageDelivered, Direction: DirectionReceive, ListParams: ListParams{Count: 200, Skip: 200}},
		{DateFrom: 1, DateTo: 2, Status: "a b&c=d/é", Direction: "x+y%z"},
		{DateFrom: 1 << 40, DateTo: 1<<40 + 1, ListParams: ListParams{Skip: 3}},
	}
	for _, q := range finds {
		got, err := encodeQuery(&q)
		require.NoError(t, err)
		assert.Equal(t, reflectQuery(t, &q), got, fmt.Sprintf("%+v", q))
	}
}

// FuzzFindQuery: the typed encoding of a message search is byte for byte
// what go-querystring gives.
func FuzzFindQuery(f *testing.F) {
	f.Add(int64(1577836800), int64(1577923200), "Delivered", "Transmit", 200, 0)
	f.Add(int64(0), int64(-1), "", "a b&c", -1, 5)
	f.Fuzz(func(t *testing.T, from, to int64, status, dir string, count, skip int) {
		q := wireFindMessages{DateFrom: from, DateTo: to, Status: MessageStatus(status), Direction: Direction(dir),
			ListParams: ListParams{Count: count, Skip: skip}}
		v, err := query.Values(&q)
		if err != nil {
			t.Fatal(err)
		}
		if got, want := q.encodeQuery(), v.Encode(); got != want {
			t.Fatalf("%+v: typed %q, go-querystring %q", q, got, want)
		}
	})
}
