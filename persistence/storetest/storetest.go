package storetest

import (
	"context"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentsnap/agentsnap/persistence"
	"github.com/agentsnap/agentsnap/session"
)

// Storage is one fresh place to keep sessions — a temporary folder, a
// temporary database, a memory backend — made for one spec.
type Storage interface {
	// Open opens a store on the storage. The suite closes every store it
	// opens, and opens the storage again to check what survived.
	Open() (persistence.Store, error)

	// Crash leaves the storage as a process that died while it appended
	// events to the stored session id would leave it: JSONL with some of
	// the lines written and the next one cut short, SQLite with the batch's
	// transaction never committed. No store is open when it is called.
	Crash(id string, events []session.Event) error
}

// Contract declares the contract specs in the calling container. newStorage
// is called once for each spec (and again by the specs that need a second
// storage), from setup or spec nodes, so it may use GinkgoT().TempDir().
func Contract(newStorage func() Storage) {
	s := &suite{}
	BeforeEach(func() {
		s.ctx = context.Background()
		s.newStorage = newStorage
		s.storage = newStorage()
		s.store = s.open(s.storage)
	})
	describeRoundTrip(s)
	describeResume(s)
	describeOrdering(s)
	describeCreateErrors(s)
	describeLifecycle(s)
	describeListOrder(s)
	describeConcurrency(s)
	describeRacingAppends(s)
	describeCrashRepair(s)
	describeDelete(s)
}

// suite is the state of one spec.
type suite struct {
	ctx        context.Context
	newStorage func() Storage
	storage    Storage
	store      persistence.Store
}

// open opens a store on st and closes it when the spec ends.
func (s *suite) open(st Storage) persistence.Store {
	GinkgoHelper()
	store, err := st.Open()
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(store.Close)
	return store
}

// reopen closes the spec's store and opens its storage again.
func (s *suite) reopen() persistence.Store {
	GinkgoHelper()
	Expect(s.store.Close()).To(Succeed())
	s.store = s.open(s.storage)
	return s.store
}

// create registers a session and appends events after its seed.
func (s *suite) create(h session.Header, seed []session.Event, events ...[]session.Event) {
	GinkgoHelper()
	Expect(s.store.Create(s.ctx, h, seed)).To(Succeed())
	for _, batch := range events {
		Expect(s.store.Append(s.ctx, h.ID, batch)).To(Succeed())
	}
}

// load loads session id from the spec's store.
func (s *suite) load(id string) *session.Log {
	GinkgoHelper()
	l, err := s.store.Load(s.ctx, id)
	Expect(err).NotTo(HaveOccurred())
	return l
}

// list returns the ids List reports, in order.
func (s *suite) list() []string {
	GinkgoHelper()
	hs, err := s.store.List(s.ctx)
	Expect(err).NotTo(HaveOccurred())
	ids := make([]string, len(hs))
	for i, h := range hs {
		ids[i] = h.ID
	}
	return ids
}

// header returns the header List reports for id.
func (s *suite) header(id string) session.Header {
	GinkgoHelper()
	hs, err := s.store.List(s.ctx)
	Expect(err).NotTo(HaveOccurred())
	for _, h := range hs {
		if h.ID == id {
			return h
		}
	}
	Fail("List does not report session " + id)
	return session.Header{}
}

// parentLog stores a root session "root" with two completed turns and
// returns its log.
func (s *suite) parentLog() *session.Log {
	GinkgoHelper()
	h := RootHeader("root")
	events := append(CompletedTurn(0, 1, "say OK", "OK"), CompletedTurn(8, 2, "again", "OK again")...)
	s.create(h, nil, events)
	return &session.Log{Header: h, Events: events}
}

// TornBytes returns what a crash in the middle of appending events leaves
// at the end of a JSONL log: the first half of the event lines, whole, and
// then half of the next line, without its newline. Crash hooks of backends
// that write lines use it.
func TornBytes(events []session.Event) []byte {
	var out []byte
	keep := len(events) / 2
	for i := range keep {
		out = session.AppendEvent(out, &events[i])
	}
	next := session.AppendEvent(nil, &events[keep])
	return append(out, next[:len(next)/2]...)
}
