package main

import (
	"context"
	"iter"
	"net/http"
	"sync/atomic"

	"github.com/agentsnap/agentsnap/llm"
)

// readyChunks and readyBytes bound how far serve reads a model's stream
// ahead of the frame it writes: the chunks it knows are ready, whose
// frames go out in one write. The bytes bound keeps big chunks from
// piling up behind a client that stopped reading: all that was read is
// recorded, even once the client has gone.
const (
	readyChunks = 64
	readyBytes  = 32 << 10
)

// batchWriter is the answer of one request. A streamed answer's writer
// flushes after every frame; while the model has its next chunk ready,
// batchWriter holds that flush back, and flushes what it holds before
// serve waits for a chunk that is not ready. So the frames of chunks that
// are ready together leave in one system call, and no frame waits for a
// later one the model has not given yet.
//
// Only the request's own goroutine uses it (the handler, and the stream
// it ranges over).
type batchWriter struct {
	http.ResponseWriter
	hold  bool // a stream is being read: Flush is held back
	dirty bool // a flush was held back
}

func (w *batchWriter) Flush() {
	if w.hold {
		w.dirty = true
		return
	}
	w.dirty = false
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// flushHeld flushes what a held-back flush left in the buffer.
func (w *batchWriter) flushHeld() {
	if !w.dirty {
		return
	}
	w.dirty = false
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// Unwrap gives http.ResponseController the guard's writer.
func (w *batchWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// ready returns s, read ahead: the model's chunks are taken as they come,
// by a goroutine of their own, up to readyChunks and about readyBytes
// ahead, and yielded with the writer's flushes held back while the next
// one is already there. When the consumer stops early, ready stops s and
// waits until it has returned, so whatever s does when it ends (a replay
// driver's bookkeeping) is done when ready returns.
func (w *batchWriter) ready(s iter.Seq[llm.Chunk]) iter.Seq[llm.Chunk] {
	return func(yield func(llm.Chunk) bool) {
		a := &readAhead{ch: make(chan llm.Chunk, readyChunks), room: make(chan struct{}, 1), done: make(chan struct{})}
		go a.fill(s)
		w.hold = true
		defer func() {
			w.hold = false
			close(a.done)
			for range a.ch { // s has returned when ch is closed
			}
		}()
		for {
			var c llm.Chunk
			var ok bool
			select {
			case c, ok = <-a.ch:
			default:
				// The next chunk is not ready: what was written goes out
				// before serve waits for it.
				w.flushHeld()
				c, ok = <-a.ch
			}
			if !ok {
				return
			}
			a.took(c)
			if !yield(c) {
				return
			}
		}
	}
}

// readAhead is a stream read ahead of its consumer.
type readAhead struct {
	ch      chan llm.Chunk
	room    chan struct{} // the consumer took a chunk (buffered: no wake-up is lost)
	done    chan struct{} // the consumer stopped
	pending atomic.Int64  // bytes of the chunks in ch
}

// fill reads s into ch while fewer than readyBytes wait there (a chunk
// alone may be bigger), then closes ch.
func (a *readAhead) fill(s iter.Seq[llm.Chunk]) {
	defer close(a.ch)
	for c := range s {
		for a.pending.Load() >= readyBytes {
			select {
			case <-a.room:
			case <-a.done:
				return
			}
		}
		a.pending.Add(chunkSize(c))
		select {
		case a.ch <- c:
		case <-a.done:
			return
		}
	}
}

// took counts c out of what waits.
func (a *readAhead) took(c llm.Chunk) {
	a.pending.Add(-chunkSize(c))
	select {
	case a.room <- struct{}{}:
	default:
	}
}

// chunkSize is about what c's frame weighs.
func chunkSize(c llm.Chunk) int64 {
	n := len(c.Text) + len(c.ID) + len(c.Name) + len(c.ArgumentsDelta) + 64
	if c.Block != nil {
		n += len(c.Block.Text) + len(c.Block.Arguments) + len(c.Block.Meta)
	}
	return int64(n)
}

// batchKey is the request context's key of its batchWriter.
type batchKey struct{}

// batchDriver reads the streams of a request with a batchWriter through
// that writer's ready; other calls are the driver's.
type batchDriver struct{ llm.Driver }

func (d batchDriver) Stream(ctx context.Context, req *llm.Request) (iter.Seq[llm.Chunk], error) {
	s, err := d.Driver.Stream(ctx, req)
	if err != nil {
		return nil, err
	}
	if w, ok := ctx.Value(batchKey{}).(*batchWriter); ok {
		return w.ready(s), nil
	}
	return s, nil
}

// CountTokens implements llm.TokenCounter for the driver it wraps.
func (d batchDriver) CountTokens(ctx context.Context, req *llm.Request) (int64, error) {
	return llm.CountTokens(ctx, d.Driver, req)
}

// batched serves h with a batchWriter, which the driver finds through the
// request's context.
func batched(h http.Handler) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		bw := &batchWriter{ResponseWriter: w}
		h.ServeHTTP(bw, r.WithContext(context.WithValue(r.Context(), batchKey{}, bw)))
	}
}
