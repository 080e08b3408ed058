package telco

import (
	"testing"
	"unicode/utf8"
)

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
