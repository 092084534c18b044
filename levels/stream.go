package levels

import (
	"context"
	"runtime"

	"vastview/loader"
)

// A ChunkFunc receives the chunks a stream hands on: chunk idx of level,
// whose bytes stay valid until release is called. The function must call
// release exactly once, when it is done with data, from any goroutine; it
// may keep data until then. An error ends the stream.
type ChunkFunc = func(level int, idx []int, data []byte, release func()) error

// Streams reports whether StreamChunks can hand on the computed levels of
// a pyramid over a source m describes in one pass: they are built from a
// stored level whose chunks are whole Y-X planes. Such a pyramid needs no
// disk cache to be written out.
func Streams(m *loader.Meta) bool {
	lv, _ := planLevels(m)
	return len(m.Levels) < len(lv) && planeStored(&loader.Meta{Axes: m.Axes, Levels: lv}, len(m.Levels), len(m.Levels))
}

// StreamChunks hands every chunk of the last stored level and of every
// computed level to fn, each once, reading the stored level once and
// computing each computed chunk once: the way to write out every level
// (an export), without the chunk cache or the disk cache in between. It
// returns the first level it streamed; the levels before it, and all of
// them when it cannot stream (see Streams), are left to ReadChunk. A
// stored chunk the source does not hold yet is handed on as zeros. Up to
// workers chunks may be held by fn at once, in buffers of their own; the
// calls to fn come from a few goroutines, concurrently.
func (p *Pyramid) StreamChunks(ctx context.Context, workers int, fn ChunkFunc) (int, error) {
	if !p.cascadeOK() {
		return len(p.meta.Levels), nil
	}
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	ctx, done, ok := p.startFlight(ForBackground(ctx))
	if !ok {
		return 0, errClosed
	}
	defer done()
	return p.stored - 1, p.buildCascade(ctx, workers, fn, nil)
}
