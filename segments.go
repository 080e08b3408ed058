package telco

import "unicode/utf8"

// Encoding is the character encoding an SMS is sent in.
type Encoding string

// SMS encodings.
const (
	EncodingGSM7 Encoding = "GSM-7" // the GSM 03.38 default alphabet, 7 bits a character
	EncodingUCS2 Encoding = "UCS-2" // UTF-16 code units, for anything GSM-7 cannot carry
)

// SegmentInfo is how a text is split into SMS segments.
type SegmentInfo struct {
	Encoding Encoding
	// Units are septets for GSM-7 (a character of the extension table, such
	// as € or {, takes two) or UTF-16 code units for UCS-2 (a character
	// outside the Basic Multilingual Plane, such as an emoji, takes two).
	Units int
	// Segments is 1 up to 160 septets or 70 code units; above that, 153
	// septets or 67 code units a segment, as the rest carries the
	// concatenation header. A two-unit character is never split across
	// segments. An empty text has 0 segments.
	Segments int
	// Remaining is how many units still fit in the last segment.
	Remaining int
}

// Segment sizes, single and concatenated.
const (
	gsmSingle, gsmMulti   = 160, 153
	ucs2Single, ucs2Multi = 70, 67
)

// Segments reports how text would be encoded and split. It agrees with the
// service's NumSegments for texts the SMS center does not alter.
//
// It walks the text once (twice when a character GSM-7 cannot carry turns
// up), counting units and packing concatenated segments as it goes, with
// ASCII read byte by byte.
func Segments(text string) SegmentInfo {
	if si, ok := countGSM(text); ok {
		return si
	}
	return countUCS2(text)
}

// countGSM counts text in GSM-7, or reports false at the first character
// GSM-7 cannot carry.
func countGSM(text string) (SegmentInfo, bool) {
	var p packer
	for i := 0; i < len(text); {
		var w int
		if c := text[i]; c < utf8.RuneSelf {
			w = int(gsmASCII[c])
			i++
		} else {
			r, n := utf8.DecodeRuneInString(text[i:])
			w = gsmWidth(r)
			i += n
		}
		if w == 0 {
			return SegmentInfo{}, false
		}
		p.add(w, gsmMulti)
	}
	return p.info(EncodingGSM7, gsmSingle, gsmMulti), true
}

func countUCS2(text string) SegmentInfo {
	var p packer
	for _, r := range text {
		p.add(ucs2Width(r), ucs2Multi)
	}
	return p.info(EncodingUCS2, ucs2Single, ucs2Multi)
}

// packer counts units and, in case the text needs concatenation, packs
// them into segments of multi units without splitting a character.
type packer struct {
	units int
	segs  int // segments used so far when concatenated, less one
	used  int // units in the last of them
}

func (p *packer) add(w, multi int) {
	p.units += w
	if p.used+w > multi {
		p.segs, p.used = p.segs+1, 0
	}
	p.used += w
}

func (p *packer) info(enc Encoding, single, multi int) SegmentInfo {
	si := SegmentInfo{Encoding: enc, Units: p.units}
	switch {
	case p.units == 0:
		si.Remaining = single
	case p.units <= single:
		si.Segments, si.Remaining = 1, single-p.units
	default:
		si.Segments, si.Remaining = p.segs+1, multi-p.used
	}
	return si
}

func ucs2Width(r rune) int {
	if r >= 0x10000 {
		return 2
	}
	return 1
}

// gsmWidth is the septets r takes in GSM-7: 1 in the basic table, 2 in the
// extension table (an escape and the character), 0 when GSM-7 cannot carry
// it.
func gsmWidth(r rune) int {
	if r < 0x80 {
		return int(gsmASCII[r])
	}
	switch r {
	case '£', '¥', 'è', 'é', 'ù', 'ì', 'ò', 'Ç', 'Ø', 'ø', 'Å', 'å',
		'Δ', 'Φ', 'Γ', 'Λ', 'Ω', 'Π', 'Ψ', 'Σ', 'Θ', 'Ξ', 'Æ', 'æ', 'ß', 'É',
		'¤', '¡', 'Ä', 'Ö', 'Ñ', 'Ü', '§', '¿', 'ä', 'ö', 'ñ', 'ü', 'à':
		return 1
	case '€':
		return 2
	}
	return 0
}

// gsmASCII holds the GSM-7 width of each ASCII character.
var gsmASCII = func() (t [128]uint8) {
	for c := ' '; c <= '~'; c++ {
		t[c] = 1
	}
	t['\n'], t['\r'] = 1, 1
	t['`'] = 0
	for _, c := range "\f^{}\\[~]|" {
		t[c] = 2
	}
	return t
}()
