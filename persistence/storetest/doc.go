// Package storetest is the contract every persistence backend passes: a
// Ginkgo shared behaviour that a backend's suite declares once,
//
//	var _ = Describe("jsonl store", func() {
//		storetest.Contract(func() storetest.Storage {
//			return &jsonlStorage{dir: GinkgoT().TempDir()}
//		})
//	})
//
// It covers the seed boundary (fork and spawn children round-trip with
// their lineage, resume keeps seedLength and createdAt), unknown events and
// members, append-order errors, concurrent sessions, reopening after Close,
// lazy materialisation and crash repair (a crash mid-append, then Load and
// Append again).
package storetest
