package boltfile

// The check of a file before bbolt maps it. bbolt follows page numbers,
// element offsets and free-list entries without bounds checks: a flipped
// byte in any of them can make it read outside the file (a fault), loop,
// or hand out a page still in use as free, which a later write would
// overwrite, losing records without a trace. verifyFile reads the file
// with ReadAt and checks what bbolt will trust, from the layout bbolt
// documents in its page and meta types:
//
//	page header: id u64, flags u16, count u16, overflow u32 (16 bytes)
//	meta (after the header): magic u32, version u32, page size u32,
//	  flags u32, root bucket {root page u64, sequence u64}, free-list page
//	  u64, high-water page u64, txid u64, FNV-64a of the above u64
//	branch element: pos u32, key size u32, child page u64
//	leaf element: flags u32, pos u32, key size u32, value size u32
//	  (pos counts from the element; flag 1 marks a bucket, whose value is
//	  {root page u64, sequence u64} and, when root is 0, an inline page)
//	free list: count ids u64 (a count of 0xFFFF is in the first u64)
//
// Integers are in the machine's byte order, as bbolt writes them.

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"hash/fnv"
	"io"
	"os"
)

const (
	pageHeaderSize = 16
	metaSize       = 64 // up to and with the checksum
	elementSize    = 16
	boltMagic      = 0xED0CDAED
	boltVersion    = 2

	flagBranch   = 0x01
	flagLeaf     = 0x02
	flagFreelist = 0x10
	flagBucket   = 0x01

	noFreelist = ^uint64(0)
	maxDepth   = 64
)

var ne = binary.NativeEndian

// Check is what Open learnt of a file it found sound enough to map: the
// damage that bbolt would not notice, for the file's owner to weigh.
type Check struct {
	// RolledBack: one header page failed its checksum, so bbolt reads the
	// commit before the last: the last change may be lost.
	RolledBack bool
	// Damaged holds, by top-level bucket, the hashes of the values that
	// fail their seal (a value of a top-level bucket is always sealed).
	Damaged map[string][]string
	// Hidden are the hashes of pages with bytes past their last element.
	// bbolt writes pages zeroed, so those are elements a damaged count
	// hides.
	Hidden []string
}

// damageID names damaged bytes, so that an owner that remembers what it
// accounted for can tell damage it met before from new damage.
func damageID(kind string, b ...[]byte) string {
	h := sha256.New()
	h.Write([]byte(kind))
	for _, x := range b {
		h.Write(x)
	}
	return kind + ":" + hex.EncodeToString(h.Sum(nil)[:8])
}

type meta struct {
	pageSize           uint32
	root, free, hwm    uint64
	txid               uint64
	valid              bool
	magicOK, versionOK bool
}

func parseMeta(b []byte) meta {
	if len(b) < pageHeaderSize+metaSize {
		return meta{}
	}
	m := b[pageHeaderSize : pageHeaderSize+metaSize]
	h := fnv.New64a()
	h.Write(m[:56])
	return meta{
		pageSize: ne.Uint32(m[8:]), root: ne.Uint64(m[16:]), free: ne.Uint64(m[32:]), hwm: ne.Uint64(m[40:]),
		txid: ne.Uint64(m[48:]), magicOK: ne.Uint32(m[0:]) == boltMagic, versionOK: ne.Uint32(m[4:]) == boltVersion,
		valid: ne.Uint32(m[0:]) == boltMagic && ne.Uint32(m[4:]) == boltVersion && h.Sum64() == ne.Uint64(m[56:]),
	}
}

func damaged(reason string, args ...any) error {
	return &DamagedError{Reason: fmt.Sprintf(reason, args...)}
}

// verifyFile checks the bbolt file f: nil and a report when bbolt may
// read it, a *DamagedError otherwise. An empty file is sound (bbolt
// writes a new one).
func verifyFile(f *os.File) (*Check, error) {
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	size := st.Size()
	if size == 0 {
		return &Check{}, nil
	}
	readAt := func(off, n int64) []byte {
		if off < 0 || n <= 0 || off+n > size {
			return nil
		}
		b := make([]byte, n)
		if _, err := f.ReadAt(b, off); err != nil && err != io.EOF {
			return nil
		}
		return b
	}
	// The page size: from the first header page, else from the second,
	// looked for where each page size would put it (as bbolt does).
	var ps int64
	if m := parseMeta(readAt(0, pageHeaderSize+metaSize)); m.valid {
		ps = int64(m.pageSize)
	} else {
		for i := 0; i <= 14 && ps == 0; i++ {
			off := int64(1024) << i
			if m := parseMeta(readAt(off, pageHeaderSize+metaSize)); m.valid && int64(m.pageSize) == off {
				ps = off
			}
		}
	}
	if ps == 0 {
		return nil, damaged("neither of its header pages is valid (truncated at %d bytes, or not a bbolt file)", size)
	}
	if ps < 1024 || ps > 1<<24 || ps&(ps-1) != 0 {
		return nil, damaged("its page size %d is not possible", ps)
	}
	if size < 2*ps {
		return nil, damaged("it is truncated (%d bytes, less than its two header pages)", size)
	}
	m0, m1 := parseMeta(readAt(0, ps)), parseMeta(readAt(ps, ps))
	// bbolt's choice: the later commit, if its header is valid, else the other.
	a, b := m0, m1
	if m1.txid > m0.txid {
		a, b = m1, m0
	}
	m := a
	if !a.valid {
		m = b
	}
	if !m.valid || int64(m.pageSize) != ps {
		return nil, damaged("neither of its header pages is valid")
	}
	check := &Check{RolledBack: !m0.valid || !m1.valid}
	if m.hwm < 2 || m.hwm > uint64(size/ps) {
		return nil, damaged("it is truncated: its pages reach %d bytes, the file has %d", m.hwm*uint64(ps), size)
	}
	buf := readAt(0, int64(m.hwm)*ps)
	if buf == nil {
		return nil, damaged("reading its %d pages failed", m.hwm)
	}
	w := &walker{buf: buf, ps: uint64(ps), hwm: m.hwm, used: map[uint64]bool{0: true, 1: true}, check: check}
	if _, err := w.tree(m.root, nil, 0, false); err != nil {
		return nil, err
	}
	free := map[uint64]bool{}
	if m.free != noFreelist {
		p, err := w.page(m.free)
		if err != nil {
			return nil, fmt.Errorf("free list: %w", err)
		}
		if ne.Uint16(p[8:]) != flagFreelist {
			return nil, damaged("its free-list page %d is not one", m.free)
		}
		count, first := uint64(ne.Uint16(p[10:])), uint64(0)
		if count == 0xFFFF {
			if len(p) < pageHeaderSize+8 {
				return nil, damaged("its free list is cut short")
			}
			count, first = ne.Uint64(p[pageHeaderSize:]), 1
		}
		if count > uint64(len(p)) || pageHeaderSize+(first+count)*8 > uint64(len(p)) {
			return nil, damaged("its free list claims %d pages, more than its page holds", count)
		}
		for i := first; i < first+count; i++ {
			id := ne.Uint64(p[pageHeaderSize+i*8:])
			if id < 2 || id >= m.hwm || w.used[id] || free[id] {
				return nil, damaged("its free list holds page %d, which is in use, repeated or outside the file", id)
			}
			free[id] = true
		}
	}
	for id := uint64(2); id < m.hwm; id++ {
		if !w.used[id] && !free[id] {
			return nil, damaged("page %d is neither in use nor free", id)
		}
	}
	return check, nil
}

// walker follows a bbolt tree through the file's bytes.
type walker struct {
	buf   []byte
	ps    uint64
	hwm   uint64
	used  map[uint64]bool
	check *Check
}

// page returns page id with its overflow pages, marked used.
func (w *walker) page(id uint64) ([]byte, error) {
	if id < 2 || id >= w.hwm {
		return nil, damaged("it refers to page %d, outside its %d pages", id, w.hwm)
	}
	off := id * w.ps
	h := w.buf[off : off+pageHeaderSize]
	over := uint64(ne.Uint32(h[12:]))
	if ne.Uint64(h) != id || id+over >= w.hwm {
		return nil, damaged("page %d is not where it should be, or runs past the file", id)
	}
	for i := id; i <= id+over; i++ {
		if w.used[i] {
			return nil, damaged("page %d is used twice", i)
		}
		w.used[i] = true
	}
	return w.buf[off : off+(over+1)*w.ps], nil
}

// tree checks the bucket tree rooted at page id; bucket is the path of
// bucket names down to it (nil for the root). It returns the first key
// under the page, which the branch above must hold; below a branch no
// page is empty.
func (w *walker) tree(id uint64, bucket [][]byte, depth int, child bool) ([]byte, error) {
	if depth > maxDepth {
		return nil, damaged("its tree is deeper than %d", maxDepth)
	}
	p, err := w.page(id)
	if err != nil {
		return nil, err
	}
	if child && ne.Uint16(p[10:]) == 0 {
		return nil, damaged("page %d is empty below a branch", id)
	}
	switch ne.Uint16(p[8:]) {
	case flagLeaf:
		return w.leaf(p, bucket, depth)
	case flagBranch:
		count := int(ne.Uint16(p[10:]))
		if count == 0 || pageHeaderSize+count*elementSize > len(p) {
			return nil, damaged("branch page %d has %d elements, not what its page holds", id, count)
		}
		var prev, first []byte
		next := uint64(pageHeaderSize + count*elementSize) // keys follow the elements, packed
		for i := range count {
			e := pageHeaderSize + i*elementSize
			start := uint64(e) + uint64(ne.Uint32(p[e:]))
			end := start + uint64(ne.Uint32(p[e+4:]))
			if start != next || end > uint64(len(p)) {
				return nil, damaged("a key of branch page %d is not where its elements say", id)
			}
			next = end
			k := p[start:end]
			if i > 0 && bytes.Compare(prev, k) >= 0 {
				return nil, damaged("the keys of branch page %d are out of order", id)
			}
			if i == 0 {
				first = k
			}
			prev = k
			fk, err := w.tree(ne.Uint64(p[e+8:]), bucket, depth+1, true)
			if err != nil {
				return nil, err
			}
			if !bytes.Equal(fk, k) {
				return nil, damaged("branch page %d does not hold the first key of its child", id)
			}
		}
		w.tail(p, next)
		return first, nil
	}
	return nil, damaged("page %d is neither a branch nor a leaf", id)
}

// tail notes a page p whose bytes past its last element, from next, are
// not zero.
func (w *walker) tail(p []byte, next uint64) {
	for _, c := range p[next:] {
		if c != 0 {
			w.check.Hidden = append(w.check.Hidden, damageID("page", p))
			return
		}
	}
}

// leaf checks a leaf page (or an inline bucket's page) p and returns its
// first key.
func (w *walker) leaf(p []byte, bucket [][]byte, depth int) ([]byte, error) {
	if len(p) < pageHeaderSize || ne.Uint16(p[8:]) != flagLeaf {
		return nil, damaged("a leaf page is not one")
	}
	count := int(ne.Uint16(p[10:]))
	if pageHeaderSize+count*elementSize > len(p) {
		return nil, damaged("a leaf page claims %d elements, more than it holds", count)
	}
	var first []byte
	sealed := len(bucket) == 1 // the values of a top-level bucket
	var prev []byte
	next := uint64(pageHeaderSize + count*elementSize) // keys and values follow the elements, packed
	for i := range count {
		e := pageHeaderSize + i*elementSize
		flags := ne.Uint32(p[e:])
		start := uint64(e) + uint64(ne.Uint32(p[e+4:]))
		mid := start + uint64(ne.Uint32(p[e+8:]))
		end := mid + uint64(ne.Uint32(p[e+12:]))
		if start != next || end > uint64(len(p)) {
			return nil, damaged("an element of a leaf page is not where its elements say")
		}
		next = end
		k, v := p[start:mid], p[mid:end]
		if i > 0 && bytes.Compare(prev, k) >= 0 {
			return nil, damaged("the keys of a leaf page are out of order")
		}
		if i == 0 {
			first = k
		}
		prev = k
		if flags&flagBucket == 0 {
			if sealed {
				if _, ok := Unseal(k, v); !ok {
					if w.check.Damaged == nil {
						w.check.Damaged = map[string][]string{}
					}
					name := string(bucket[0])
					w.check.Damaged[name] = append(w.check.Damaged[name], damageID("record", k, v))
				}
			}
			continue
		}
		if len(v) < 16 {
			return nil, damaged("a bucket's header is cut short")
		}
		sub := append(append([][]byte(nil), bucket...), k)
		var err error
		if root := ne.Uint64(v); root != 0 {
			_, err = w.tree(root, sub, depth+1, false)
		} else {
			_, err = w.leaf(v[16:], sub, depth+1)
		}
		if err != nil {
			return nil, err
		}
	}
	w.tail(p, next)
	return first, nil
}
