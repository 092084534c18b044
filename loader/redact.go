package loader

import (
	"bytes"
	"io"
	"strings"
)

// Redacted is the text that stands for a credential left out of a message.
const Redacted = "xxxxx"

// Redact returns text (a message, an address, a line of a log) with the
// secrets of every address in it left out: the user information of
// scheme://USER:PASSWORD@host/... and the values of query parameters whose
// names say they are signatures, tokens, keys or credentials
// (X-Amz-Signature, X-Amz-Credential, X-Amz-Security-Token, sig, token,
// access_token, key, ...) each become Redacted. The rest of the text is
// kept as it is, so the address still says where the data is. Every
// message, trace event and log line that can carry an address goes
// through it.
func Redact(text string) string {
	if !strings.Contains(text, "://") {
		return text
	}
	var sb strings.Builder
	rest := text
	for {
		i := strings.Index(rest, "://")
		if i < 0 {
			sb.WriteString(rest)
			return sb.String()
		}
		// The address runs from "://" to the first white space, quote or
		// angle bracket.
		start := i + 3
		end := start + strings.IndexFunc(rest[start:], endsAddress)
		if end < start {
			end = len(rest)
		}
		sb.WriteString(rest[:start])
		sb.WriteString(redactAddress(rest[start:end]))
		rest = rest[end:]
	}
}

// endsAddress reports whether r ends an address in running text.
func endsAddress(r rune) bool {
	switch r {
	case ' ', '\t', '\n', '\r', '"', '\'', '`', '<', '>':
		return true
	}
	return false
}

// redactAddress redacts one address after its "scheme://".
func redactAddress(a string) string {
	// User information: the authority (up to the first '/', '?' or '#')
	// holding an '@'; or, since a secret may hold a '/' (AWS secret keys
	// do) and the user may not have escaped it, a ':' before an '@' later
	// in the address.
	auth := a
	if k := strings.IndexAny(a, "/?#"); k >= 0 {
		auth = a[:k]
	}
	q := strings.IndexAny(a, "?#")
	head := a
	if q >= 0 {
		head = a[:q]
	}
	if at := strings.LastIndexByte(auth, '@'); at >= 0 {
		a = Redacted + a[at:]
	} else if at := strings.IndexByte(head, '@'); at >= 0 && strings.Contains(head[:at], ":") {
		a = Redacted + a[at:]
	}
	q = strings.IndexByte(a, '?')
	if q < 0 {
		return a
	}
	query, frag := a[q+1:], ""
	if k := strings.IndexByte(query, '#'); k >= 0 {
		query, frag = query[:k], query[k:]
	}
	params := strings.Split(query, "&")
	for i, p := range params {
		name, _, ok := strings.Cut(p, "=")
		if ok && secretName(name) {
			params[i] = name + "=" + Redacted
		}
	}
	return a[:q+1] + strings.Join(params, "&") + frag
}

// secretName reports whether a query parameter's name says that its value
// is a secret.
func secretName(name string) bool {
	n := strings.ToLower(name)
	for _, s := range []string{"sig", "token", "key", "credential", "secret", "pass", "auth", "session", "policy"} {
		if strings.Contains(n, s) {
			return true
		}
	}
	return false
}

// RedactingWriter returns a writer that passes each Write to w through
// Redact. Each Write must hold whole addresses (a line, a message), as
// fmt.Fprintf and the log package write them.
func RedactingWriter(w io.Writer) io.Writer { return redactingWriter{w} }

type redactingWriter struct{ w io.Writer }

// schemeSep is what every address holds.
var schemeSep = []byte("://")

// Unwrap returns the underlying writer (a terminal, say).
func (r redactingWriter) Unwrap() io.Writer { return r.w }

// Write writes Redact(p) to the underlying writer and reports len(p).
func (r redactingWriter) Write(p []byte) (int, error) {
	if !bytes.Contains(p, schemeSep) {
		return r.w.Write(p) // no address: no copy
	}
	if _, err := io.WriteString(r.w, Redact(string(p))); err != nil {
		return 0, err
	}
	return len(p), nil
}
