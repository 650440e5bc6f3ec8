package storetest

import (
	"errors"
	"fmt"
	"sync"
	"sync/atomic"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentsnap/agentsnap/persistence"
	"github.com/agentsnap/agentsnap/session"
)

// tick is a small event of session i.
func tick(i int, seq int64) session.Event {
	return Event(seq, "x/tick", map[string]any{"session": i, "seq": seq})
}

func describeConcurrency(s *suite) {
	Describe("concurrency", func() {
		const sessions, batches, perBatch = 8, 6, 4

		It("appends to many sessions at once, each in order, while others read", func() {
			want := make([]*session.Log, sessions)
			for i := range want {
				want[i] = &session.Log{Header: SpawnHeader("root", fmt.Sprintf("call_%d", i))}
				for seq := range int64(batches * perBatch) {
					want[i].Events = append(want[i].Events, tick(i, seq))
				}
			}
			done := make(chan struct{})
			var readers sync.WaitGroup
			for _, w := range want[:2] {
				readers.Go(func() { readUntil(s, done, w.Header.ID, perBatch) })
			}
			var writers sync.WaitGroup
			for _, w := range want {
				writers.Go(func() {
					defer GinkgoRecover()
					Expect(s.store.Create(s.ctx, w.Header, nil)).To(Succeed())
					for b := range batches {
						Expect(s.store.Append(s.ctx, w.Header.ID, w.Events[b*perBatch:(b+1)*perBatch])).To(Succeed())
					}
				})
			}
			writers.Wait()
			close(done)
			readers.Wait()

			for _, w := range want {
				Expect(Encoded(s.load(w.Header.ID))).To(Equal(Encoded(w)))
			}
			s.reopen()
			Expect(s.list()).To(HaveLen(sessions))
			for _, w := range want {
				Expect(Encoded(s.load(w.Header.ID))).To(Equal(Encoded(w)), "after a reopen")
			}
		})
	})
}

func describeRacingAppends(s *suite) {
	Describe("racing appends", func() {
		It("lets exactly one of several racing appends of the same seq through", func() {
			const rounds, racers = 12, 4
			Expect(s.store.Create(s.ctx, RootHeader("root"), nil)).To(Succeed())
			for seq := range int64(rounds) {
				var won, lost atomic.Int32
				start := make(chan struct{})
				var wg sync.WaitGroup
				for r := range racers {
					wg.Go(func() {
						defer GinkgoRecover()
						<-start
						err := s.store.Append(s.ctx, "root", []session.Event{tick(r, seq)})
						switch {
						case err == nil:
							won.Add(1)
						case errors.Is(err, persistence.ErrOutOfOrder):
							lost.Add(1)
						default:
							Fail("unexpected error: " + err.Error())
						}
					})
				}
				close(start)
				wg.Wait()
				Expect(won.Load()).To(BeEquivalentTo(1), "round %d", seq)
				Expect(lost.Load()).To(BeEquivalentTo(racers-1), "round %d", seq)
			}
			s.reopen()
			Expect(s.load("root").Events).To(HaveLen(rounds))
		})
	})
}

// readUntil lists and loads session id until done is closed, checking that
// every load sees whole batches of perBatch events.
func readUntil(s *suite, done <-chan struct{}, id string, perBatch int) {
	defer GinkgoRecover()
	for {
		select {
		case <-done:
			return
		default:
		}
		_, err := s.store.List(s.ctx)
		Expect(err).NotTo(HaveOccurred())
		l, err := s.store.Load(s.ctx, id)
		if err != nil {
			Expect(err).To(MatchError(persistence.ErrUnknownSession))
			continue
		}
		Expect(len(l.Events)%perBatch).To(BeZero(), "a load sees whole batches")
	}
}
