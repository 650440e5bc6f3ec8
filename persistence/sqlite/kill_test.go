package sqlite_test

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"

	"github.com/agentsnap/agentsnap/persistence/sqlite"
	"github.com/agentsnap/agentsnap/session"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// killEnv names the database a child process appends to until it is killed.
const killEnv = "AGENTSNAP_SQLITE_KILL_DB"

const (
	killSessions = 3  // sessions appending concurrently
	killBatch    = 16 // events per Append
)

// appendUntilKilled is the child process of the SIGKILL specs: through the
// real store it appends batches of killBatch events to killSessions sessions
// from as many goroutines, printing "ok SESSION N" after each Append returns
// (N events durable), forever.
func appendUntilKilled() {
	ctx := context.Background()
	store, err := sqlite.Open(ctx, os.Getenv(killEnv))
	if err != nil {
		panic(err)
	}
	out := make(chan string)
	for s := range killSessions {
		id := fmt.Sprintf("s%d", s)
		if err := store.Create(ctx, session.Header{ID: id, CreatedAt: int64(s)}, nil); err != nil {
			panic(err)
		}
		go func() {
			for n := 0; ; n += killBatch {
				batch := make([]session.Event, killBatch)
				for i := range batch {
					batch[i] = session.Event{Type: "x/tick", Seq: int64(n + i), Time: int64(n + i), Data: []byte(`{"pad":"` + fmt.Sprint(n+i) + `"}`)}
				}
				if err := store.Append(ctx, id, batch); err != nil {
					panic(err)
				}
				out <- fmt.Sprintf("ok %s %d", id, n+killBatch)
			}
		}()
	}
	w := bufio.NewWriter(os.Stdout)
	for line := range out {
		fmt.Fprintln(w, line)
		w.Flush()
	}
}

var _ = Describe("a process killed with SIGKILL while appending", Label("faults"), func() {
	DescribeTable("leaves a database that opens and holds whole batches only, every acknowledged one included",
		func(afterAcks int) {
			path := filepath.Join(GinkgoT().TempDir(), "killed.db")
			cmd := exec.Command(os.Args[0], "-test.run=^TestSQLite$")
			cmd.Env = append(os.Environ(), killEnv+"="+path)
			stdout, err := cmd.StdoutPipe()
			Expect(err).NotTo(HaveOccurred())
			Expect(cmd.Start()).To(Succeed())
			acked := map[string]int{}
			lines := bufio.NewScanner(stdout)
			for seen := 0; seen < afterAcks && lines.Scan(); seen++ {
				var id string
				var n int
				_, err := fmt.Sscanf(lines.Text(), "ok %s %d", &id, &n)
				Expect(err).NotTo(HaveOccurred(), lines.Text())
				acked[id] = n
			}
			Expect(cmd.Process.Kill()).To(Succeed())
			_ = cmd.Wait()

			store, err := sqlite.Open(context.Background(), path)
			Expect(err).NotTo(HaveOccurred())
			defer store.Close()
			headers, err := store.List(context.Background())
			Expect(err).NotTo(HaveOccurred())
			for _, h := range headers {
				l, err := store.Load(context.Background(), h.ID)
				Expect(err).NotTo(HaveOccurred())
				n := len(l.Events)
				Expect(n%killBatch).To(BeZero(), "session %s holds %d events: a torn batch", h.ID, n)
				Expect(n).To(BeNumerically(">=", acked[h.ID]), "session %s lost an acknowledged batch", h.ID)
				for i, e := range l.Events {
					Expect(e.Seq).To(Equal(int64(i)))
					Expect(string(e.Data)).To(Equal(`{"pad":"` + strconv.Itoa(i) + `"}`))
				}
			}
			// And it takes more appends afterwards.
			if len(headers) > 0 {
				l, _ := store.Load(context.Background(), headers[0].ID)
				next := session.Event{Type: "x/after", Seq: int64(len(l.Events)), Data: []byte(`{}`)}
				Expect(store.Append(context.Background(), headers[0].ID, []session.Event{next})).To(Succeed())
			}
		},
		Entry("right after it starts", 0),
		Entry("after a few batches", 5),
		Entry("after many batches", 60),
		Entry("after a few hundred batches", 300),
	)
})
