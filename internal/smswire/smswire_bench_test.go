package smswire

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/telcosdk/telco"
)

// sendBody is what the SDK sends for a typical send.
var sendBody = []byte(`{"From":"+61400000001","To":"+61400000002","Text":"Your order has shipped","ExternalId":"order-7"}`)

// BenchmarkDecodeJSON reads a send's body with the table, against the
// baseline of encoding/json into a struct with the wire names in tags,
// how the fake read it before, which checks neither duplicates nor
// unknown keys.
func BenchmarkDecodeJSON(b *testing.B) {
	b.Run("impl=smswire", func(b *testing.B) {
		b.ReportAllocs()
		for range b.N {
			var p telco.SendMessageParams
			if _, err := DecodeJSON(sendBody, &p); err != nil || p.To == "" {
				b.Fatal(err)
			}
		}
	})
	b.Run("impl=baseline", func(b *testing.B) {
		b.ReportAllocs()
		for range b.N {
			var w struct {
				From            string `json:"From"`
				To              string `json:"To"`
				Text            string `json:"Text"`
				Schedule        int64  `json:"Schedule"`
				DeliveryReceipt *bool  `json:"DeliveryReceipt"`
				ExternalID      string `json:"ExternalId"`
			}
			if err := json.Unmarshal(sendBody, &w); err != nil || w.To == "" {
				b.Fatal(err)
			}
			p := telco.SendMessageParams{From: w.From, To: w.To, Text: w.Text, DeliveryReceipt: w.DeliveryReceipt, ExternalID: w.ExternalID}
			if w.Schedule != 0 {
				p.Schedule = time.Unix(w.Schedule, 0)
			}
			_ = p
		}
	})
}
