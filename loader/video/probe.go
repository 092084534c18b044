package video

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	"math"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"

	"vastview/loader"
)

// Limits on what a probe may describe.
const (
	maxFrames  = 1 << 26 // about 310 hours at 60 frames per second
	maxSide    = 1 << 16 // pixels per side
	maxLine    = 1 << 20
	noTS       = math.MinInt64
	maxTBValue = 1 << 40
)

// probeRuns counts ffprobe runs, so that tests can tell a cached index
// from a new one.
var probeRuns atomic.Int64

// probeArgs are ffprobe's arguments for path's first video stream that
// is not a cover picture: its packets (demuxed, not decoded) and stream
// parameters, one "section|key=value|..." line each.
func probeArgs(path string) []string {
	return []string{
		"-v", "error", "-hide_banner", "-select_streams", "V:0",
		"-show_entries", "packet=pts,dts,size,flags:stream=codec_name,width,height,pix_fmt,color_space,time_base:stream_side_data=rotation",
		"-of", "compact=p=1:nk=0", "--", path,
	}
}

// extradataArgs ask for the same stream's codec extradata alone. It is a
// run of its own because -show_data would also hex-dump every packet.
func extradataArgs(path string) []string {
	return []string{
		"-v", "error", "-hide_banner", "-select_streams", "V:0",
		"-show_entries", "stream=codec_name,extradata", "-show_data",
		"-of", "compact=p=1:nk=0", "--", path,
	}
}

// runProbe runs ffprobe on path (the packet listing and, beside it, the
// extradata query) and parses what they print into an index.
func runProbe(ctx context.Context, ffprobe, path string) (*index, error) {
	probeRuns.Add(1)
	type result struct {
		out []byte
		err error
	}
	extra := make(chan result, 1)
	go func() {
		var stderr tailBuffer
		cmd := exec.CommandContext(ctx, ffprobe, extradataArgs(path)...)
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		extra <- result{out, probeError(err, &stderr, path)}
	}()
	cmd := exec.CommandContext(ctx, ffprobe, probeArgs(path)...)
	var stderr tailBuffer
	cmd.Stderr = &stderr
	pipe, err := cmd.StdoutPipe()
	if err == nil {
		err = cmd.Start()
	}
	if err != nil {
		<-extra
		return nil, formatError("ffprobe: %v", err)
	}
	ix := &index{}
	stream, perr := ix.parse(pipe)
	if perr != nil {
		io.Copy(io.Discard, pipe)
	}
	err = probeError(cmd.Wait(), &stderr, path)
	x := <-extra
	switch {
	case ctx.Err() != nil:
		return nil, ctx.Err()
	case err != nil:
		return nil, err
	case x.err != nil:
		return nil, x.err
	case perr != nil:
		return nil, perr
	}
	if _, err := ix.parse(bytes.NewReader(x.out)); err != nil {
		return nil, err
	}
	return ix, ix.finish(stream)
}

// probeError explains a failed ffprobe run from its stderr.
func probeError(err error, stderr *tailBuffer, path string) error {
	if err == nil {
		return nil
	}
	msg := stderr.lastLine(path)
	if msg == "" {
		msg = err.Error()
	}
	return formatError("unreadable (ffprobe: %s)", msg)
}

// parseProbe reads ffprobe's compact output: "stream|..." lines (whose
// fields add up) and "packet|pts=..|dts=..|size=..|flags=.." lines in
// decode order. Packets flagged discard ('D') or empty produce no frame
// and are left out. Frames are put in presentation order.
func parseProbe(r io.Reader) (*index, error) {
	ix := &index{}
	stream, err := ix.parse(r)
	if err != nil {
		return nil, err
	}
	return ix, ix.finish(stream)
}

// parse adds the packets and stream parameters of ffprobe output to ix
// and tells whether there was a stream line.
func (ix *index) parse(r io.Reader) (stream bool, err error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 4096), maxLine)
	for sc.Scan() {
		line := sc.Bytes()
		switch {
		case bytes.HasPrefix(line, []byte("packet|")):
			if err := ix.addPacket(line); err != nil {
				return stream, err
			}
		case bytes.HasPrefix(line, []byte("stream|")):
			stream = true
			ix.setStream(string(line))
		}
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return stream, formatError("ffprobe printed a line longer than %d bytes", maxLine)
		}
		return stream, formatError("reading ffprobe output: %v", err)
	}
	return stream, nil
}

// finish checks what was parsed and puts the frames in presentation
// order.
func (ix *index) finish(stream bool) error {
	if !stream {
		return formatError("no video stream")
	}
	ix.mono = ix.mono && ix.codec == "h264"
	if ix.pixFmt == "" || ix.pixFmt == "unknown" {
		return formatError("ffprobe cannot tell the pixel format of the %s stream (is the codec supported?)", orUnknown(ix.codec))
	}
	if len(ix.pts) == 0 {
		return formatError("the video stream has no frames")
	}
	ix.sortFrames()
	return ix.check()
}

// addPacket records one packet line.
func (ix *index) addPacket(line []byte) error {
	pts, dts, size, flags := int64(noTS), int64(noTS), int64(-1), []byte(nil)
	rest := line[len("packet|"):]
	for len(rest) > 0 {
		f := rest
		if i := bytes.IndexByte(rest, '|'); i >= 0 {
			f, rest = rest[:i], rest[i+1:]
		} else {
			rest = nil
		}
		k, v, ok := bytes.Cut(f, []byte("="))
		if !ok {
			continue
		}
		switch string(k) {
		case "pts":
			pts = parseTS(v)
		case "dts":
			dts = parseTS(v)
		case "size":
			if n, ok := parseInt(v); ok {
				size = n
			}
		case "flags":
			flags = v
		}
	}
	if size == 0 || bytes.IndexByte(flags, 'D') >= 0 {
		return nil
	}
	if pts == noTS {
		pts = dts
	}
	if pts == noTS {
		return &loader.UnsupportedError{Format: "video", Feature: "video packets without timestamps"}
	}
	if len(ix.pts) >= maxFrames {
		return formatError("more than %d frames", maxFrames)
	}
	ix.pts = append(ix.pts, pts)
	ix.key = append(ix.key, bytes.IndexByte(flags, 'K') >= 0)
	return nil
}

// parseInt parses a decimal integer of at most 18 digits, with an
// optional minus sign, without allocating.
func parseInt(v []byte) (int64, bool) {
	neg := len(v) > 0 && v[0] == '-'
	if neg {
		v = v[1:]
	}
	if len(v) == 0 || len(v) > 18 {
		return 0, false
	}
	var n int64
	for _, c := range v {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int64(c-'0')
	}
	if neg {
		n = -n
	}
	return n, true
}

// parseTS parses a timestamp; "N/A" and anything unparsable or out of
// range are noTS.
func parseTS(v []byte) int64 {
	n, ok := parseInt(v)
	if !ok || n <= -1<<62 || n >= 1<<62 {
		return noTS
	}
	return n
}

// setStream records the parameters a stream line gives.
func (ix *index) setStream(line string) {
	for _, f := range splitCompact(line[len("stream|"):]) {
		k, v, ok := strings.Cut(f, "=")
		if !ok {
			continue
		}
		switch k {
		case "codec_name":
			ix.codec = v
		case "pix_fmt":
			ix.pixFmt = v
		case "color_space":
			ix.colorSpace = v
		case "width":
			ix.width, _ = strconv.Atoi(v)
		case "height":
			ix.height, _ = strconv.Atoi(v)
		case "time_base":
			n, d, _ := strings.Cut(v, "/")
			ix.tbNum, _ = strconv.ParseInt(n, 10, 64)
			ix.tbDen, _ = strconv.ParseInt(d, 10, 64)
		case "extradata":
			ix.mono = ix.mono || h264Mono(parseHexDump(v))
		case "rotation":
			r, err := strconv.ParseFloat(v, 64)
			if err == nil && !math.IsNaN(r) && !math.IsInf(r, 0) {
				ix.rotation = r
			}
		}
	}
}

// splitCompact splits a line of ffprobe's compact output into its fields,
// undoing the writer's C-style escapes (\n, \\, \|, ...).
func splitCompact(line string) []string {
	var fields []string
	var f strings.Builder
	for i := 0; i < len(line); i++ {
		c := line[i]
		switch {
		case c == '\\' && i+1 < len(line):
			i++
			switch line[i] {
			case 'n':
				f.WriteByte('\n')
			case 'r':
				f.WriteByte('\r')
			case 'b':
				f.WriteByte('\b')
			case 'f':
				f.WriteByte('\f')
			default:
				f.WriteByte(line[i])
			}
		case c == '|':
			fields = append(fields, f.String())
			f.Reset()
		default:
			f.WriteByte(c)
		}
	}
	return append(fields, f.String())
}

func orUnknown(s string) string {
	if s == "" {
		return "video"
	}
	return s
}

// tailBuffer keeps the last few KiB written to it: a process's stderr.
// It is safe for one writer and a reader after the writer is done.
type tailBuffer struct{ b []byte }

const tailMax = 4 << 10

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.b = append(t.b, p...)
	if len(t.b) > tailMax {
		t.b = append(t.b[:0], t.b[len(t.b)-tailMax:]...)
	}
	return len(p), nil
}

// lastLine returns the last few distinct lines written (at most three,
// joined by "; "), without FFmpeg's "[demuxer @ 0x...]" prefixes and
// without mentions of path (errors never repeat the file name: the
// caller adds it).
func (t *tailBuffer) lastLine(path string) string {
	var out []string
	lines := strings.Split(strings.TrimSpace(string(t.b)), "\n")
	for i := len(lines) - 1; i >= 0 && len(out) < 3; i-- {
		l := strings.TrimSpace(lines[i])
		if strings.HasPrefix(l, "[") {
			if _, rest, ok := strings.Cut(l, "] "); ok {
				l = rest
			}
		}
		l = strings.TrimSpace(strings.TrimPrefix(l, path+":"))
		l = strings.ReplaceAll(l, path, "the file")
		if l != "" && !slices.Contains(out, l) {
			out = append(out, l)
		}
	}
	slices.Reverse(out)
	return strings.Join(out, "; ")
}

// formatError makes a FormatError of the video format.
func formatError(format string, args ...any) error {
	return loader.Errorf("video", format, args...)
}
