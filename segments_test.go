package telco

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
)

func TestSegments(t *testing.T) {
	r := strings.Repeat
	cases := []struct {
		name string
		text string
		want SegmentInfo
	}{
		{"empty", "", SegmentInfo{EncodingGSM7, 0, 0, 160}},
		{"hello", "Hello world!", SegmentInfo{EncodingGSM7, 12, 1, 148}},
		{"160 basic", r("a", 160), SegmentInfo{EncodingGSM7, 160, 1, 0}},
		{"161 basic", r("a", 161), SegmentInfo{EncodingGSM7, 161, 2, 145}},
		{"306 basic", r("a", 306), SegmentInfo{EncodingGSM7, 306, 2, 0}},
		{"307 basic", r("a", 307), SegmentInfo{EncodingGSM7, 307, 3, 152}},
		{"basic table accents", "£¥èéùìòÇØøÅåΔ_ΦΓΛΩΠΨΣΘΞÆæßÉ¤¡ÄÖÑÜ§¿äöñüà@$\n\r", SegmentInfo{EncodingGSM7, 44, 1, 116}},
		{"extension table costs two", "€[]{}|^~\\\f", SegmentInfo{EncodingGSM7, 20, 1, 140}},
		{"80 euros fill one segment", r("€", 80), SegmentInfo{EncodingGSM7, 160, 1, 0}},
		{"an escape is not split", r("a", 152) + "€" + r("a", 8), SegmentInfo{EncodingGSM7, 162, 2, 143}},
		{"backtick is not GSM", "`", SegmentInfo{EncodingUCS2, 1, 1, 69}},
		{"70 ucs2", r("ж", 70), SegmentInfo{EncodingUCS2, 70, 1, 0}},
		{"71 ucs2", r("ж", 71), SegmentInfo{EncodingUCS2, 71, 2, 63}},
		{"134 ucs2", r("ж", 134), SegmentInfo{EncodingUCS2, 134, 2, 0}},
		{"135 ucs2", r("ж", 135), SegmentInfo{EncodingUCS2, 135, 3, 66}},
		{"emoji is a surrogate pair", "hi 😀", SegmentInfo{EncodingUCS2, 5, 1, 65}},
		{"a pair is not split", r("a", 66) + "😀" + r("a", 3), SegmentInfo{EncodingUCS2, 71, 2, 62}},
		{"one non-GSM character switches all", r("a", 100) + "ç", SegmentInfo{EncodingUCS2, 101, 2, 33}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, Segments(tc.text))
		})
	}
}

func TestGSMTableCoversPrintableASCII(t *testing.T) {
	ext := "^{}\\[~]|"
	for c := rune(' '); c <= '~'; c++ {
		want := 1
		switch {
		case c == '`':
			want = 0
		case strings.ContainsRune(ext, c):
			want = 2
		}
		assert.Equal(t, want, gsmWidth(c), "%q", c)
	}
	assert.Equal(t, 0, gsmWidth('\t'))
	assert.Equal(t, 0, gsmWidth(0))
}

// referenceSegments is the straightforward count Segments replaced: one
// pass for the encoding, one for the units, one to pack segments.
func referenceSegments(text string) SegmentInfo {
	enc, single, multi, width := EncodingGSM7, gsmSingle, gsmMulti, gsmWidth
	for _, r := range text {
		if gsmWidth(r) == 0 {
			enc, single, multi, width = EncodingUCS2, ucs2Single, ucs2Multi, ucs2Width
			break
		}
	}
	units := 0
	for _, r := range text {
		units += width(r)
	}
	si := SegmentInfo{Encoding: enc, Units: units}
	switch {
	case units == 0:
		si.Remaining = single
	case units <= single:
		si.Segments, si.Remaining = 1, single-units
	default:
		segs, used := 1, 0
		for _, r := range text {
			w := width(r)
			if used+w > multi {
				segs, used = segs+1, 0
			}
			used += w
		}
		si.Segments, si.Remaining = segs, multi-used
	}
	return si
}

// FuzzSegments: the one-pass count agrees with the reference on any text,
// invalid UTF-8 included.
func FuzzSegments(f *testing.F) {
	for _, s := range []string{"", "Hello", "€[]{}", "Ж", "a😀b", "\xff\xfe", "`", "a\x80"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := Segments(s), referenceSegments(s); got != want {
			t.Fatalf("Segments(%q) = %+v, want %+v (valid UTF-8: %v)", s, got, want, utf8.ValidString(s))
		}
	})
}
