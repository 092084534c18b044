package store

import (
	"bytes"
	"context"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// DefaultPartSize is the size above which Put uploads a value in parts
// (S3's multipart upload), and the size of those parts.
const DefaultPartSize = 64 << 20

// minPartSize is the smallest part S3 accepts but for the last.
const minPartSize = 5 << 20

// Put stores data as the value of key, in one request, or, when it is
// larger than HTTPOptions.PartSize, in a multipart upload of parts of
// that size (aborted if a part fails). Every request takes a concurrency
// slot (HTTPOptions.MaxConcurrent) and is retried as reads are. Errors
// are one line naming the key's address, never credentials.
func (h *HTTP) Put(ctx context.Context, key string, data []byte) error {
	if err := checkKey(key); err != nil {
		return err
	}
	if int64(len(data)) <= h.opt.PartSize {
		_, _, err := h.write(ctx, http.MethodPut, key, "", data)
		return err
	}
	return h.putParts(ctx, key, data)
}

// Delete removes the value of key; a missing one is no error.
func (h *HTTP) Delete(ctx context.Context, key string) error {
	if err := checkKey(key); err != nil {
		return err
	}
	_, _, err := h.write(ctx, http.MethodDelete, key, "", nil)
	if errors.Is(err, ErrNotFound) {
		return nil
	}
	return err
}

// putParts uploads data as a multipart upload.
func (h *HTTP) putParts(ctx context.Context, key string, data []byte) error {
	b, _, err := h.write(ctx, http.MethodPost, key, "uploads", nil)
	if err != nil {
		return err
	}
	var start struct {
		UploadID string `xml:"UploadId"`
	}
	if xml.Unmarshal(b, &start) != nil || start.UploadID == "" {
		return fmt.Errorf("POST %s%s: the answer names no upload", h.shown, escapeKey(key))
	}
	id := "uploadId=" + url.QueryEscape(start.UploadID)
	type part struct {
		Number int    `xml:"PartNumber"`
		ETag   string `xml:"ETag"`
	}
	var done struct {
		XMLName xml.Name `xml:"CompleteMultipartUpload"`
		Parts   []part   `xml:"Part"`
	}
	size := max(h.opt.PartSize, minPartSize)
	for n := 1; len(data) > 0; n++ {
		c := data[:min(int64(len(data)), size)]
		data = data[len(c):]
		_, hdr, err := h.write(ctx, http.MethodPut, key, "partNumber="+strconv.Itoa(n)+"&"+id, c)
		if err != nil {
			h.write(context.WithoutCancel(ctx), http.MethodDelete, key, id, nil)
			return err
		}
		done.Parts = append(done.Parts, part{n, hdr.Get("ETag")})
	}
	body, err := xml.Marshal(done)
	if err == nil {
		var ans []byte
		ans, _, err = h.write(ctx, http.MethodPost, key, id, body)
		// S3 may answer 200 and report the failure in the body.
		if err == nil && bytes.Contains(ans, []byte("<Error>")) {
			err = fmt.Errorf("POST %s%s: completing the upload failed: %s", h.shown, escapeKey(key), oneLine(errors.New(string(ans))))
		}
	}
	if err != nil {
		h.write(context.WithoutCancel(ctx), http.MethodDelete, key, id, nil)
		return err
	}
	h.stats.uploads.Add(1)
	return nil
}

// write sends a request with body to key (query added to the URL),
// retrying as a read does, and returns the answer's body and header.
func (h *HTTP) write(ctx context.Context, method, key, query string, body []byte) ([]byte, http.Header, error) {
	esc := escapeKey(key)
	target := h.prefix + esc + h.query
	if query != "" {
		if h.query == "" {
			target += "?"
		} else {
			target += "&"
		}
		target += query
	}
	return h.do(ctx, method, target, h.shown+esc, body)
}

// do sends a request with body to target, retrying as a read does.
func (h *HTTP) do(ctx context.Context, method, target, shown string, body []byte) ([]byte, http.Header, error) {
	ctx, done, err := h.begin(ctx)
	if err != nil {
		return nil, nil, err
	}
	defer done()
	var used spent
	reauth := false
	for n := 1; ; n++ {
		b, hdr, fail := h.send(ctx, method, target, body, &used)
		if fail == nil {
			return b, hdr, nil
		}
		if again, err := h.again(ctx, method, shown, n, fail, &used, &reauth); !again {
			return nil, nil, err
		}
	}
}

// send makes one request of a write within a concurrency slot; it fails
// when the answer takes longer than HTTPOptions.AttemptTimeout plus the
// time the body takes at MinRate.
func (h *HTTP) send(ctx context.Context, method, target string, body []byte, used *spent) ([]byte, http.Header, *attemptError) {
	select {
	case h.slots <- struct{}{}:
	case <-ctx.Done():
		return nil, nil, &attemptError{err: ctx.Err()}
	}
	defer func() { <-h.slots }()
	if h.root.Err() != nil {
		return nil, nil, &attemptError{err: ErrClosed}
	}
	h.stats.inFlight.Add(1)
	defer h.stats.inFlight.Add(-1)
	h.stats.requests.Add(1)
	start := time.Now()
	defer func() {
		used.time += time.Since(start)
		used.bytes += int64(len(body))
	}()
	limit := h.opt.AttemptTimeout + time.Duration(int64(len(body))*int64(time.Second)/h.opt.MinRate)
	actx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	req, err := http.NewRequestWithContext(actx, method, target, bytes.NewReader(body))
	if err != nil {
		return nil, nil, &attemptError{err: err}
	}
	req.ContentLength = int64(len(body))
	if h.opt.Sign != nil {
		if err := h.opt.Sign(req); err != nil {
			return nil, nil, &attemptError{err: err}
		}
	}
	resp, err := h.client.Do(req)
	if err != nil {
		if errors.Is(err, context.DeadlineExceeded) && ctx.Err() == nil {
			return nil, nil, &attemptError{err: fmt.Errorf("no answer within %v", limit), retry: true}
		}
		return nil, nil, &attemptError{err: describe(err), retry: retryable(err)}
	}
	defer resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		return nil, nil, h.checkStatus(resp, resp.Body, byteRange{all: true})
	}
	b, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return nil, nil, &attemptError{err: describe(err), status: resp.StatusCode, retry: true}
	}
	h.stats.sent.Add(int64(len(body)))
	return b, resp.Header, nil
}

// ListObjects calls fn with the name of each value or folder directly under dir
// ("" for the store's root), and whether it is a folder, with S3's
// ListObjectsV2 (which Google Cloud Storage's XML API also answers); a
// missing dir lists nothing. Only object stores list (NewS3, NewGCS).
// It is not Lister's List, so that readers keep treating HTTP stores as
// stores that do not list.
func (h *HTTP) ListObjects(ctx context.Context, dir string, fn func(name string, folder bool) error) error {
	if h.list == "" {
		return fmt.Errorf("%s: cannot list a web server", h.shown)
	}
	p := h.listPrefix
	if d := strings.Trim(dir, "/"); d != "" {
		p += d + "/"
	}
	token := ""
	for {
		q := "?list-type=2&delimiter=%2F&prefix=" + url.QueryEscape(p)
		if token != "" {
			q += "&continuation-token=" + url.QueryEscape(token)
		}
		b, err := h.listPage(ctx, q)
		if err != nil {
			return err
		}
		var page struct {
			Contents []struct {
				Key string `xml:"Key"`
			} `xml:"Contents"`
			Prefixes []struct {
				Prefix string `xml:"Prefix"`
			} `xml:"CommonPrefixes"`
			Truncated bool   `xml:"IsTruncated"`
			Next      string `xml:"NextContinuationToken"`
		}
		if err := xml.Unmarshal(b, &page); err != nil {
			return fmt.Errorf("GET %s: the listing cannot be read", h.shown)
		}
		for _, c := range page.Contents {
			if name := strings.TrimPrefix(c.Key, p); name != "" && !strings.Contains(name, "/") {
				if err := fn(name, false); err != nil {
					return err
				}
			}
		}
		for _, c := range page.Prefixes {
			if name := strings.Trim(strings.TrimPrefix(c.Prefix, p), "/"); name != "" {
				if err := fn(name, true); err != nil {
					return err
				}
			}
		}
		if !page.Truncated || page.Next == "" {
			return nil
		}
		token = page.Next
	}
}

// listPage GETs one page of a listing of the bucket.
func (h *HTTP) listPage(ctx context.Context, query string) ([]byte, error) {
	b, _, err := h.do(ctx, http.MethodGet, h.list+query, h.shown, nil)
	return b, err
}

// setList makes the store list keys below prefix (no leading '/', a
// trailing one unless empty) with requests to the bucket's URL.
func (h *HTTP) setList(bucketURL, prefix string) {
	h.list, h.listPrefix = bucketURL, prefix
}
