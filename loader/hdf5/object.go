package hdf5

import (
	"bytes"
)

// Message types of object headers.
const (
	msgDataspace    = 0x0001
	msgLinkInfo     = 0x0002
	msgDatatype     = 0x0003
	msgFillOld      = 0x0004
	msgFill         = 0x0005
	msgLink         = 0x0006
	msgLayout       = 0x0008
	msgFilters      = 0x000B
	msgAttribute    = 0x000C
	msgContinuation = 0x0010
	msgSymbolTable  = 0x0011
	msgAttrInfo     = 0x0015
)

// message is one header message: its type, flags and body.
type message struct {
	typ   uint16
	flags uint8
	data  []byte
}

// Limits that keep a malformed file from making the reader spin.
const (
	maxHeaderBlocks   = 1 << 12 // continuation blocks per object header
	maxHeaderMessages = 1 << 16
	maxHeaderBytes    = 1 << 26
)

// span is a block of the file: address and length.
type span struct{ addr, n uint64 }

// object is a parsed object header.
type object struct {
	addr uint64
	msgs []message
}

// find returns the first message of type t, or nil.
func (o *object) find(t uint16) *message {
	for i := range o.msgs {
		if o.msgs[i].typ == t {
			return &o.msgs[i]
		}
	}
	return nil
}

// readObject parses the object header at addr, following continuations.
func (h *File) readObject(addr uint64) (*object, error) {
	head, err := h.readUpTo(addr, 16, "object header")
	if err != nil {
		return nil, err
	}
	o := &object{addr: addr}
	var pending []span
	total := 0
	if bytes.HasPrefix(head, []byte("OHDR")) {
		// Version 2.
		b, err := h.readUpTo(addr, 64, "object header")
		if err != nil {
			return nil, err
		}
		r := h.newReader(b)
		r.skip(4)
		if v := r.u8(); v != 2 {
			return nil, errorf("object header at %#x: version %d", addr, v)
		}
		flags := r.u8()
		if flags&0x20 != 0 {
			r.skip(16)
		}
		if flags&0x10 != 0 {
			r.skip(4)
		}
		size := r.uint(1 << (flags & 3))
		if r.err != nil {
			return nil, errorf("object header at %#x: truncated", addr)
		}
		if size > maxHeaderBytes {
			return nil, errorf("object header at %#x: chunk of %d bytes", addr, size)
		}
		start := uint64(r.off)
		body, err := h.readAt(addr+start, int64(size), "object header")
		if err != nil {
			return nil, err
		}
		conts, err := o.parseV2(h, body, flags)
		if err != nil {
			return nil, err
		}
		pending = append(pending, conts...)
		total += len(body)
		for i := 0; i < len(pending); i++ {
			if i >= maxHeaderBlocks || total > maxHeaderBytes {
				return nil, errorf("object header at %#x: too many continuation blocks", addr)
			}
			c := pending[i]
			if c.n < 8 || c.n > maxHeaderBytes {
				return nil, errorf("object header at %#x: continuation of %d bytes", addr, c.n)
			}
			b, err := h.readAt(c.addr, int64(c.n), "object header continuation")
			if err != nil {
				return nil, err
			}
			if !bytes.HasPrefix(b, []byte("OCHK")) {
				return nil, errorf("object header at %#x: continuation at %#x has no OCHK signature", addr, c.addr)
			}
			total += len(b)
			more, err := o.parseV2(h, b[4:len(b)-4], flags)
			if err != nil {
				return nil, err
			}
			pending = append(pending, more...)
		}
		return o, nil
	}
	// Version 1: 16-byte prefix, then messages 8-byte aligned.
	r := h.newReader(head)
	if v := r.u8(); v != 1 {
		return nil, errorf("object header at %#x: version %d", addr, v)
	}
	r.skip(1)
	nmsg := int(r.u16())
	r.u32()
	size := uint64(r.u32())
	if r.err != nil {
		return nil, errorf("object header at %#x: truncated", addr)
	}
	if size > maxHeaderBytes {
		return nil, errorf("object header at %#x: %d bytes", addr, size)
	}
	pending = append(pending, span{addr + 16, size})
	for i := 0; i < len(pending); i++ {
		if i >= maxHeaderBlocks || total > maxHeaderBytes {
			return nil, errorf("object header at %#x: too many continuation blocks", addr)
		}
		c := pending[i]
		b, err := h.readAt(c.addr, int64(c.n), "object header")
		if err != nil {
			return nil, err
		}
		total += len(b)
		r := h.newReader(b)
		for r.rest() >= 8 && len(o.msgs) < nmsg {
			t := r.u16()
			n := int(r.u16())
			fl := r.u8()
			r.skip(3)
			d := r.bytes(n)
			if r.err != nil {
				return nil, errorf("object header at %#x: message of %d bytes overruns its block", addr, n)
			}
			if pad := (8 - r.off%8) % 8; pad > 0 && r.rest() >= pad {
				r.skip(pad)
			}
			o.msgs = append(o.msgs, message{t, fl, d})
			if t == msgContinuation {
				cr := h.newReader(d)
				ca, cn := cr.addr(), cr.length()
				if cr.err != nil {
					return nil, errorf("object header at %#x: short continuation message", addr)
				}
				pending = append(pending, span{ca, cn})
			}
		}
		if len(o.msgs) > maxHeaderMessages {
			return nil, errorf("object header at %#x: too many messages", addr)
		}
	}
	return o, nil
}

// parseV2 adds the messages of one version-2 header block and returns the
// continuation blocks it names.
func (o *object) parseV2(h *File, b []byte, flags uint8) ([]span, error) {
	var conts []span
	r := h.newReader(b)
	hdr := 4
	if flags&0x04 != 0 {
		hdr = 6
	}
	for r.rest() >= hdr {
		t := uint16(r.u8())
		n := int(r.u16())
		fl := r.u8()
		if flags&0x04 != 0 {
			r.skip(2)
		}
		d := r.bytes(n)
		if r.err != nil {
			return nil, errorf("object header at %#x: message of %d bytes overruns its block", o.addr, n)
		}
		if t == 0 { // padding (gap)
			continue
		}
		o.msgs = append(o.msgs, message{t, fl, d})
		if len(o.msgs) > maxHeaderMessages {
			return nil, errorf("object header at %#x: too many messages", o.addr)
		}
		if t == msgContinuation {
			cr := h.newReader(d)
			ca, cn := cr.addr(), cr.length()
			if cr.err != nil {
				return nil, errorf("object header at %#x: short continuation message", o.addr)
			}
			conts = append(conts, span{ca, cn})
		}
	}
	return conts, nil
}
