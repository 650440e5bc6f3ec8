package main

import (
	"context"
	"iter"
	"net/http"

	"github.com/agentsnap/agentsnap/llm"
)

// readyChunks is how many chunks of a stream serve takes from the model
// ahead of the frame it writes: the chunks it knows are ready, whose
// frames go out in one write.
const readyChunks = 64

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
// by a goroutine of their own, up to readyChunks ahead, and yielded with
// the writer's flushes held back while the next one is already there.
// When the consumer stops early, ready stops s and waits until it has
// returned, so whatever s does when it ends (a replay driver's
// bookkeeping) is done when ready returns.
func (w *batchWriter) ready(s iter.Seq[llm.Chunk]) iter.Seq[llm.Chunk] {
	return func(yield func(llm.Chunk) bool) {
		ch := make(chan llm.Chunk, readyChunks)
		done := make(chan struct{})
		go func() {
			defer close(ch)
			for c := range s {
				select {
				case ch <- c:
				case <-done:
					return
				}
			}
		}()
		w.hold = true
		defer func() {
			w.hold = false
			close(done)
			for range ch { // s has returned when ch is closed
			}
		}()
		for {
			var c llm.Chunk
			var ok bool
			select {
			case c, ok = <-ch:
			default:
				// The next chunk is not ready: what was written goes out
				// before serve waits for it.
				w.flushHeld()
				c, ok = <-ch
			}
			if !ok || !yield(c) {
				return
			}
		}
	}
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

// batched serves h with a batchWriter, which the driver finds through the
// request's context.
func batched(h http.Handler) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		bw := &batchWriter{ResponseWriter: w}
		h.ServeHTTP(bw, r.WithContext(context.WithValue(r.Context(), batchKey{}, bw)))
	}
}
