package telco

import (
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// msDateRE is how DateTime would be parsed by hand: a regexp for the shape
// and strconv for the numbers.
var msDateRE = regexp.MustCompile(`^"\\?/Date\((-?\d+)(?:([+-])(\d{2})(\d{2}))?\)\\?/"$`)

func baselineDateTime(data []byte) (time.Time, bool) {
	m := msDateRE.FindSubmatch(data)
	if m == nil {
		return time.Time{}, false
	}
	ms, err := strconv.ParseInt(string(m[1]), 10, 64)
	if err != nil {
		return time.Time{}, false
	}
	t := time.UnixMilli(ms).UTC()
	if len(m[2]) == 0 {
		return t, true
	}
	hh, _ := strconv.Atoi(string(m[3]))
	mm, _ := strconv.Atoi(string(m[4]))
	secs := (hh*60 + mm) * 60
	if m[2][0] == '-' {
		secs = -secs
	}
	return t.In(time.FixedZone(string(m[2])+string(m[3])+string(m[4]), secs)), true
}

// BenchmarkDateTime decodes one DateTime from its JSON form.
func BenchmarkDateTime(b *testing.B) {
	for _, in := range []struct{ name, data string }{
		{"offset", `"/Date(1577836800000+1000)/"`},
		{"utc", `"/Date(1577836800000)/"`},
	} {
		data := []byte(in.data)
		b.Run("in="+in.name+"/impl=baseline", func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				if _, ok := baselineDateTime(data); !ok {
					b.Fatal("no match")
				}
			}
		})
		b.Run("in="+in.name+"/impl=sdk", func(b *testing.B) {
			b.ReportAllocs()
			var d DateTime
			for i := 0; i < b.N; i++ {
				if err := d.UnmarshalJSON(data); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkSegments counts segments of 160 and 1,600 characters in each
// encoding. The baseline is the least any counter must do: walk the runes
// once.
func BenchmarkSegments(b *testing.B) {
	gsm := "Your order #4711 has shipped and will arrive on Tuesday. Track it at https://acme.example.com/t/4711 and reply STOP to opt out. {ref: €5} "
	ucs := "Ваш заказ №4711 отправлен и прибудет во вторник. Отслеживайте: https://acme.example.com/t/4711 — ответьте STOP для отказа 📦 "
	for _, in := range []struct {
		name string
		text string
		enc  Encoding
	}{
		{"gsm7-160", fit(gsm, 160), EncodingGSM7},
		{"gsm7-1600", fit(gsm, 1600), EncodingGSM7},
		{"ucs2-160", fit(ucs, 160), EncodingUCS2},
		{"ucs2-1600", fit(ucs, 1600), EncodingUCS2},
	} {
		b.Run("text="+in.name+"/impl=baseline", func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				n := 0
				for range in.text {
					n++
				}
				if n == 0 {
					b.Fatal("empty")
				}
			}
		})
		b.Run("text="+in.name+"/impl=sdk", func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				if si := Segments(in.text); si.Encoding != in.enc {
					b.Fatal(si)
				}
			}
		})
	}
}

// fit repeats s to exactly n characters.
func fit(s string, n int) string {
	r := []rune(strings.Repeat(s, n/len([]rune(s))+1))
	return string(r[:n])
}
