package judge

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/maphash"
	"io/fs"
	"maps"
	"reflect"
	"slices"
	"sync"

	"github.com/agentsnap/agentsnap/fakellm"
	"github.com/agentsnap/agentsnap/fixture"
	"github.com/agentsnap/agentsnap/internal/held"
	"github.com/agentsnap/agentsnap/session"
)

// keptLog is what a replay of a fixture opened without its logs keeps of
// each recorded log when its script is derived (fakellm.WithRead): what
// the verdict needs of a session that replayed as recorded, so that only
// the files of the sessions that differ are read again (judgeKept).
type keptLog struct {
	place  session.Place // its header and own calls, for the lineage order
	rules  recorded      // what its category's rules read of it
	events eventsDigest
	calls  int // its model calls (session.Log.CountModelCalls): a replay of the same events makes as many
}

// eventsDigest is a digest of what comparing a log's events reads
// (sameBut): each event but its time.
type eventsDigest struct {
	sum [2]uint64
	n   int
	// plain is false when an event has members this package does not know
	// (session.Event.Extra), which sameBut never calls the same: such a
	// log is always compared whole.
	plain bool
}

// keepRead returns the option that fills kept, one per log file of fx,
// as fakellm reads them.
func keepRead(fx *fixture.Fixture, kept []keptLog) fakellm.Option {
	cat := fx.Category()
	return fakellm.WithRead(func(i int, l *session.Log) {
		kept[i] = keptLog{place: session.PlaceOf(l), rules: recordedOf(l, cat), events: digestEvents(l.Events), calls: l.CountModelCalls()}
	})
}

// digestEvents digests events: every member of each, its time excepted,
// each written with its length, so two lists digest alike only when
// their events are the same but for their times.
func digestEvents(events []session.Event) eventsDigest {
	var d digester
	d.add(events)
	sum := d.sum()
	d.release()
	return sum
}

// digester digests a log's events as they come (digestEvents in pieces):
// the digest of events added in several calls is the one of them all,
// since maphash's value depends only on the bytes written. A digester may
// be copied, to go on from what it has digested.
type digester struct {
	h       [2]maphash.Hash
	b       []byte // bytes not hashed yet
	n       int
	started bool
	strange bool // an event had members this package does not know
}

// add digests events after those already added.
func (d *digester) add(events []session.Event) {
	if !d.started {
		d.h[0].SetSeed(digestSeeds[0])
		d.h[1].SetSeed(digestSeeds[1])
		d.started = true
	}
	if d.b == nil {
		d.b = (*digestBuffers.Get().(*[]byte))[:0]
	}
	d.n += len(events)
	raw := func(r []byte) {
		if r == nil {
			d.b = append(d.b, 0)
			return
		}
		d.b = binary.AppendUvarint(append(d.b, 1), uint64(len(r)))
		d.b = append(d.b, r...)
	}
	for i := range events {
		if len(d.b) >= digestBatch {
			d.flush() // a few large writes rather than one an event
		}
		e := &events[i]
		d.b = binary.AppendUvarint(d.b, uint64(len(e.Type)))
		d.b = append(d.b, e.Type...)
		d.b = binary.AppendVarint(d.b, e.Seq)
		d.b = append(d.b, boolByte(e.Ignorable))
		raw(e.Data)
		raw(e.SurfaceOp)
		d.b = append(d.b, boolByte(e.SourceEventSeqs != nil))
		d.b = binary.AppendUvarint(d.b, uint64(len(e.SourceEventSeqs)))
		for _, s := range e.SourceEventSeqs {
			d.b = binary.AppendVarint(d.b, s)
		}
		d.b = binary.AppendUvarint(d.b, uint64(len(e.Extra)))
		if len(e.Extra) > 0 {
			d.strange = true
			for _, k := range slices.Sorted(maps.Keys(e.Extra)) {
				raw([]byte(k))
				raw(e.Extra[k])
			}
		}
	}
}

func (d *digester) flush() {
	d.h[0].Write(d.b)
	d.h[1].Write(d.b)
	d.b = d.b[:0]
}

// release gives back the buffer d gathers bytes in, once they are hashed
// (flush): a replay that digests thousands of sessions as they are written
// keeps none between writes.
func (d *digester) release() {
	if d.b != nil && len(d.b) == 0 {
		b := d.b
		digestBuffers.Put(&b)
		d.b = nil
	}
}

// digestBuffers are the buffers digesters gather bytes in.
var digestBuffers = sync.Pool{New: func() any { b := make([]byte, 0, digestBatch+512); return &b }}

// sum is the digest of the events added so far; more may be added after.
func (d *digester) sum() eventsDigest {
	if !d.started {
		d.add(nil)
	}
	d.flush()
	return eventsDigest{sum: [2]uint64{d.h[0].Sum64(), d.h[1].Sum64()}, n: d.n, plain: !d.strange}
}

// digestSeeds are the seeds of a digest's two hashes (maphash, several
// times faster than SHA-256 here), chosen at random in each process, so
// no log is written knowing them: two that differ digest alike by chance
// only, with odds of about one in 2^128.
var digestSeeds = [2]maphash.Seed{maphash.MakeSeed(), maphash.MakeSeed()}

// digestBatch is how many bytes digestEvents gathers before it hashes them.
const digestBatch = 16 << 10

func boolByte(v bool) byte {
	if v {
		return 1
	}
	return 0
}

// replayedAsRecorded reports whether p's replay has the recorded log's
// header and events but for what legitimately differs (its times, a
// {{cwd}}), as compareSession would find: then it has no difference.
// seen, when not nil, saw the replay's events written (digestOf).
func (k *keptLog) replayedAsRecorded(p pair, n *normalizer, seen *seenStore) bool {
	if p.replay == nil || p.golden == nil || !k.events.plain || len(p.replay.Events) != k.events.n {
		return false
	}
	if !sameHeader(&p.golden.Header, &p.replay.Header, n) {
		return false
	}
	got := seen.digestOf(p.replay)
	return got.plain && got.sum == k.events.sum
}

// judgeKept judges the recorded sessions of pairs (the first len(kept))
// from what start-up kept of their logs: a session that replayed as
// recorded has no difference, one the replay never created needs only its
// header, and the others' files are read again for their differences. So
// the verdict reads only the files of the sessions that differ. The
// recording judged is the one the replay served: a file read again that is
// not what start-up read is an error that says so. It returns what the
// category's rules read of each log.
func (o *Outcome) judgeKept(pairs []pair, n *normalizer, vs []verdict, kept []keptLog) ([]recorded, error) {
	fx := o.Fixture
	again := make([]bool, len(kept))
	eachSession(len(kept), func(i int) { again[i] = !kept[i].replayedAsRecorded(pairs[i], n, o.seen) })
	var read []int
	o.counted = make(map[*session.Log]int, len(kept))
	for i, a := range again {
		switch {
		case !a:
			o.counted[pairs[i].replay] = kept[i].calls
		case pairs[i].replay == nil:
			vs[i] = judgePair(pairs[i], n) // its recorded id, from the header served
		default:
			read = append(read, i)
		}
	}
	errs := make([]error, len(read))
	eachSession(len(read), func(j int) {
		i := read[j]
		held.RecordingLogs.Take(1)
		defer held.RecordingLogs.Drop(1)
		l, err := readAgain(fx.LogPaths()[i], &kept[i])
		if err != nil {
			errs[j] = err
			return
		}
		p := pairs[i]
		p.golden = l
		vs[i] = judgePair(p, n)
	})
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	places, tree := make([]session.Place, len(kept)), make([]recorded, len(kept))
	for i := range kept {
		places[i], tree[i] = kept[i].place, kept[i].rules
	}
	return tree, fx.CheckPlaces(places)
}

// readAgain reads the log at path for the verdict, which must be the one
// start-up read and kept k of. Its header may differ in createdAt, a time
// the verdict never compares (sameHeader, normalizer.header), as its
// events may in theirs (digestEvents): a log written again with the same
// events is the recording served, and is judged as read.
func readAgain(path string, k *keptLog) (*session.Log, error) {
	l, err := session.ReadFile(path)
	if err != nil {
		return nil, notReadAgain(path, err)
	}
	h, kh := l.Header, k.place.Header
	h.CreatedAt, kh.CreatedAt = 0, 0
	if l.Torn != nil || !reflect.DeepEqual(h, kh) || digestEvents(l.Events) != k.events {
		return nil, fmt.Errorf("%s changed since the replay began: %s", path, servedAsRead)
	}
	return l, nil
}

// servedAsRead is why a log changed since start-up is not judged.
const servedAsRead = "the replay was served from the recording as it was read then, and is judged against it, so this session's verdict would compare it with another; run the replay again"

// notReadAgain words err, from reading path again for the verdict, for
// what it is: the file removed or no longer a log is a change; anything
// else (a directory in its place, a permission, an I/O error) is a file
// the verdict cannot read, and says so with the system's error.
func notReadAgain(path string, err error) error {
	var parse *session.ParseError
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("%s was removed since the replay began: the replay was served from the recording as it was read then, and judging this session needs it again; restore it and run the replay again", path)
	case errors.As(err, &parse):
		return fmt.Errorf("%s changed since the replay began (%w): %s", path, err, servedAsRead)
	}
	return fmt.Errorf("%s could not be read again (%w): judging this session against the recording the replay was served needs the file; make it a readable log file again and run the replay again", path, err)
}
