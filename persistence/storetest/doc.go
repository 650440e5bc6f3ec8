// Package storetest checks a persistence.Store against the contract every
// persistence backend passes, as testing/fstest.TestFS checks an fs.FS: Run
// runs every check on fresh storage and returns one error listing every
// check the store failed, each with what the store was asked, what it did
// and what was wanted. It imports no test framework, so a plain go test
// links none:
//
//	func TestStore(t *testing.T) {
//		err := storetest.Run(t.Context(), func() (storetest.Storage, error) {
//			return &dirStorage{dir: t.TempDir()}, nil
//		})
//		if err != nil {
//			t.Fatal(err)
//		}
//	}
//
// A Storage opens stores on one place (a folder, a database) and can leave
// it as a crash would. Checks lists the same checks one by one, so a Ginkgo
// suite can declare one spec each; a check that does not apply to the store
// (the delete checks of a store that is no persistence.Deleter) returns an
// error wrapping ErrSkipped:
//
//	var _ = Describe("my store", func() {
//		for _, c := range storetest.Checks() {
//			It(c.Name, func(ctx SpecContext) {
//				err := c.Run(ctx, func() (storetest.Storage, error) {
//					return &dirStorage{dir: GinkgoT().TempDir()}, nil
//				})
//				if errors.Is(err, storetest.ErrSkipped) {
//					Skip(err.Error())
//				}
//				if err != nil {
//					Fail(err.Error())
//				}
//			})
//		}
//	})
//
// The checks cover the seed boundary (fork and spawn children round-trip
// with their lineage, resume keeps seedLength and createdAt), unknown
// events and members, append-order errors, concurrent sessions, reopening
// after Close, lazy materialisation, crash repair (a crash mid-append, then
// Load and Append again), Delete, and — on a Storage that is a Faulty —
// an Append after a failed one and a log lost behind the store's back —
// and a second store appending to a session, or storing it anew as long,
// while the first is open, as another process would (skipped when the
// Storage cannot open twice).
// Every store a check opens is closed before it returns; a panic of the
// store fails that check, and Run goes on with the next.
//
// The fixtures (RootHeader, CompletedTurn, Encoded, ...) and the benchmark
// helpers (BenchAppend, BenchLoad) serve the backends' own tests too.
package storetest
