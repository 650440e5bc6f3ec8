package sqlite_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentsnap/agentsnap/persistence"
	"github.com/agentsnap/agentsnap/persistence/sqlite"
	"github.com/agentsnap/agentsnap/persistence/storetest"
)

// damage rewrites the file at path with change applied to its bytes.
func damage(path string, change func([]byte) []byte) {
	GinkgoHelper()
	data, err := os.ReadFile(path)
	Expect(err).NotTo(HaveOccurred())
	Expect(os.WriteFile(path, change(data), 0o644)).To(Succeed())
}

// zero returns data with the bytes from..to (to -1: the end) set to 0.
func zero(from, to int) func([]byte) []byte {
	return func(data []byte) []byte {
		if to < 0 {
			to = len(data)
		}
		clear(data[from:to])
		return data
	}
}

// replace returns data with old, which it holds once, replaced by new of
// the same length: a few bytes of the schema page overwritten.
func replace(old, new string) func([]byte) []byte {
	return func(data []byte) []byte {
		GinkgoHelper()
		Expect(bytes.Count(data, []byte(old))).To(Equal(1), "%q in the file", old)
		Expect(new).To(HaveLen(len(old)))
		return bytes.Replace(data, []byte(old), []byte(new), 1)
	}
}

// readAll reads every session src holds.
func readAll(ctx context.Context, src persistence.Source) error {
	hs, err := src.Sessions(ctx)
	if err != nil {
		return err
	}
	for _, h := range hs {
		if _, err := src.Read(ctx, h.ID); err != nil {
			return err
		}
	}
	return nil
}

// fill writes a database of eight sessions at path, several pages long,
// as agentsnap leaves it.
func fill(path string) {
	GinkgoHelper()
	ctx := context.Background()
	s, err := sqlite.Open(ctx, path)
	Expect(err).NotTo(HaveOccurred())
	for i := range 8 {
		id := fmt.Sprintf("root-%d", i)
		Expect(s.Create(ctx, storetest.RootHeader(id), nil)).To(Succeed())
		Expect(s.Append(ctx, id, storetest.CompletedTurn(0, 1, "a prompt long enough to fill pages", "an answer"))).To(Succeed())
	}
	Expect(s.Close()).To(Succeed())
}

var _ = Describe("a damaged sqlite database", func() {
	ctx := context.Background()
	var dir, path string

	// A database of several pages, as agentsnap leaves it: 4096-byte pages,
	// the first holding the header and the schema, the tables after it.
	BeforeEach(func() {
		dir = GinkgoT().TempDir()
		path = filepath.Join(dir, "sessions.db")
		fill(path)
		st, err := os.Stat(path)
		Expect(err).NotTo(HaveOccurred())
		Expect(st.Size()).To(BeNumerically(">=", 4*4096), "the damage below needs pages past the first")
	})

	// use opens the database both ways and reads every session, as convert
	// and inspect (read-only) and --store (read-write) do.
	use := map[string]func() error{
		"read-write": func() error {
			s, err := sqlite.Open(ctx, path)
			if err != nil {
				return err
			}
			defer s.Close()
			return readAll(ctx, s.Backend())
		},
		"read-only": func() error {
			b, err := sqlite.OpenReadOnly(ctx, path)
			if err != nil {
				return err
			}
			defer b.Close()
			return readAll(ctx, b)
		},
	}

	DescribeTable("says the file is damaged and what to do, not that its version is unsupported, and leaves it untouched",
		func(change func([]byte) []byte, says string) {
			damage(path, change)
			before := snapshot(dir)
			for how, use := range use {
				err := use()
				Expect(err).To(MatchError(sqlite.ErrDamaged), how)
				Expect(err).NotTo(MatchError(sqlite.ErrSchemaVersion), how)
				Expect(err).To(MatchError(persistence.ErrAdvised), how)
				Expect(err.Error()).To(ContainSubstring("sqlite: "+path+": "), how)
				Expect(err.Error()).To(ContainSubstring(says), how)
				Expect(err.Error()).To(HaveSuffix("; agentsnap does not repair or change it; restore it from a backup or a copy, or give a new path and record its sessions again"), how)
				Expect(err.Error()).NotTo(ContainSubstring(".recover"), how)
				Expect(persistence.OpenAdvice(err)).To(BeEmpty(), how)
				Expect(snapshot(dir)).To(Equal(before), how)
			}
		},
		Entry("a header overwritten after the magic (its user_version too)", func(b []byte) []byte {
			for i := 16; i < 100; i++ {
				b[i] = 0xab
			}
			return b
		}, "its header gives a page size of 43947 bytes, which SQLite never writes"),
		Entry("a page size of 0", zero(16, 18), "a page size of 0 bytes"),
		Entry("file format versions SQLite never writes", func(b []byte) []byte { b[18], b[19] = 7, 7; return b },
			"file format versions 7 and 7"),
		Entry("payload fractions SQLite never writes", func(b []byte) []byte { b[21] = 0; return b },
			"payload fractions 0, 32 and 32"),
		Entry("a schema format SQLite never writes", func(b []byte) []byte { b[47] = 9; return b },
			"schema format 9"),
		Entry("a file truncated in the middle", func(b []byte) []byte { return b[:len(b)/2+100] }, "it is truncated: its header gives"),
		Entry("a file truncated to its first page", func(b []byte) []byte { return b[:4096] }, "the file has 4096 bytes"),
		Entry("the schema page zeroed after the header", zero(100, 4096), "SQLite says: database disk image is malformed"),
		Entry("every page after the first zeroed", zero(4096, -1), "SQLite says: database disk image is malformed"),
		Entry("a column's name in the schema page overwritten", replace("surface_op", "surface_o\xa7"),
			"its table events has no column surface_op, which every agentsnap database has"),
		Entry("another column's name in the schema page overwritten", replace("created_at", "\xe7reated_at"),
			"its table sessions has no column created_at, which every agentsnap database has"),
		Entry("the name of extra_members' column overwritten", replace("members    TEXT", "membe\xffs    TEXT"),
			"its table extra_members has no column members, which every agentsnap database has"),
	)

	It("reads a database whose schema spells a column in another case, which is the same column to SQLite", func() {
		damage(path, replace("created_at", "CREATED_at"))
		for how, use := range use {
			Expect(use()).To(Succeed(), how)
		}
	})

	It("tells a version from the future in an intact header from damage, and says a newer agentsnap wrote it", func() {
		rawExec(path, "PRAGMA user_version = 5")
		for how, use := range use {
			err := use()
			Expect(err).To(MatchError(sqlite.ErrSchemaVersion), how)
			Expect(err).NotTo(MatchError(sqlite.ErrDamaged), how)
			Expect(err.Error()).To(ContainSubstring("a newer agentsnap wrote it"), how)
			Expect(err.Error()).To(ContainSubstring("whose convert turns it into JSONL session logs this one reads"), how)
			Expect(persistence.OpenAdvice(err)).To(BeEmpty(), how)
		}
	})

	It("says a copy of an agentsnap database that lost its version (sqlite3's .dump) is one, and how to set the version back", func() {
		rawExec(path, "PRAGMA user_version = 0")
		before := snapshot(dir)
		for how, use := range use {
			err := use()
			Expect(err).To(MatchError(sqlite.ErrForeign), how)
			Expect(err.Error()).To(ContainSubstring("sqlite: "+path+": not an agentsnap database: it holds agentsnap's tables (events, extra_members, sessions) but user_version 0, which agentsnap never leaves; "), how)
			Expect(err.Error()).To(ContainSubstring("set the version back with: sqlite3 "+path+" 'PRAGMA user_version = 4'; else give a new path"), how)
			Expect(err.Error()).NotTo(ContainSubstring("another application"), how)
			Expect(snapshot(dir)).To(Equal(before), how)
		}
	})

	It("quotes a path with a space in the command it suggests", func() {
		spaced := filepath.Join(GinkgoT().TempDir(), "my sessions.db")
		Expect(os.Rename(path, spaced)).To(Succeed())
		rawExec(spaced, "PRAGMA user_version = 0")
		_, err := sqlite.OpenReadOnly(ctx, spaced)
		Expect(err).To(MatchError(ContainSubstring("set the version back with: sqlite3 '" + spaced + "' 'PRAGMA user_version = 4'")))
	})

	DescribeTable("says who wrote a database of another version",
		func(version int, says string) {
			rawExec(path, fmt.Sprintf("PRAGMA user_version = %d", version))
			_, err := sqlite.OpenReadOnly(ctx, path)
			Expect(err).To(MatchError(sqlite.ErrSchemaVersion))
			Expect(err.Error()).To(HaveSuffix(says))
		},
		Entry("an older one", 3, "an older agentsnap wrote it: turn it into JSONL session logs with that agentsnap's convert, then convert them back with this one"),
		Entry("a negative one", -2, "no agentsnap writes a negative version: the file is damaged, or another program's; give a new path"),
	)
})

// These specs compare the database and its -wal, not the -shm: any SQLite
// connection rewrites the -shm when a -wal is beside the database, reading
// included, and it holds nothing a recovery needs.
var _ = Describe("a damaged sqlite database with a WAL a killed writer left", func() {
	ctx := context.Background()

	It("is not checkpointed into by a read-write open that finds it damaged: the database and its WAL stay as they were", func() {
		path := crashed(zero(4096, -1))
		db, wal := digest(path), digest(path+"-wal")
		_, err := sqlite.Open(ctx, path)
		Expect(err).To(MatchError(sqlite.ErrDamaged))
		Expect(err.Error()).To(ContainSubstring("sqlite: " + path + ": list sessions: damaged SQLite database"))
		Expect(digest(path)).To(Equal(db), "the database file")
		Expect(digest(path+"-wal")).To(Equal(wal), "the WAL, which may hold what a recovery needs")

		b, err := sqlite.OpenReadOnly(ctx, path)
		Expect(err).NotTo(HaveOccurred())
		_, err = b.Sessions(ctx)
		Expect(err).To(MatchError(sqlite.ErrDamaged))
		Expect(b.Close()).To(Succeed())
		Expect(digest(path)).To(Equal(db), "read-only: the database file")
		Expect(digest(path+"-wal")).To(Equal(wal), "read-only: the WAL")
	})

	It("counts damage SQLite finds while the store prepares its statements as damage: the same error, and Close leaves the WAL as it is", func() {
		path := crashed(func(b []byte) []byte { return b })
		db, wal := digest(path), digest(path+"-wal")
		b, err := sqlite.OpenBackend(ctx, path)
		Expect(err).NotTo(HaveOccurred())
		err = b.PrepareFailed(codedError(1))
		Expect(err).NotTo(MatchError(sqlite.ErrDamaged), "SQLITE_ERROR")
		Expect(err.Error()).To(Equal("sqlite: " + path + ": SQLite error 1"))
		err = b.PrepareFailed(codedError(11 | 2<<8)) // SQLITE_CORRUPT_SEQUENCE
		Expect(err).To(MatchError(sqlite.ErrDamaged))
		Expect(err).To(MatchError(persistence.ErrAdvised))
		Expect(err.Error()).To(HavePrefix("sqlite: " + path + ": damaged SQLite database: SQLite says: SQLite error 523; "))
		Expect(b.Close()).To(Succeed())
		Expect(digest(path)).To(Equal(db), "the database file, though it passes quick_check")
		Expect(digest(path+"-wal")).To(Equal(wal), "the WAL")
	})

	It("is not checkpointed into by a read-write open that finds its schema damaged", func() {
		path := crashed(replace("surface_op", "surface_o\xa7"))
		db, wal := digest(path), digest(path+"-wal")
		_, err := sqlite.Open(ctx, path)
		Expect(err).To(MatchError(sqlite.ErrDamaged))
		Expect(err.Error()).To(ContainSubstring("its table events has no column surface_op"))
		Expect(digest(path)).To(Equal(db), "the database file")
		Expect(digest(path+"-wal")).To(Equal(wal), "the WAL")
	})
})

// crashed returns the path of a copy of a database whose last commit is
// only in its -wal file, as a killed writer leaves it, with change applied
// to the database file. The commit changed an event of root-7, so the
// events table is read through the WAL.
func crashed(change func([]byte) []byte) string {
	GinkgoHelper()
	live := filepath.Join(GinkgoT().TempDir(), "live.db")
	fill(live)
	w, err := sql.Open("sqlite", live+"?_pragma=wal_autocheckpoint(0)")
	Expect(err).NotTo(HaveOccurred())
	w.SetMaxOpenConns(1)
	defer w.Close()
	_, err = w.Exec("UPDATE events SET time = time + 1 WHERE session_id = 'root-7' AND seq = 7")
	Expect(err).NotTo(HaveOccurred())
	dir := GinkgoT().TempDir()
	path := filepath.Join(dir, "sessions.db")
	for _, suffix := range []string{"", "-wal"} {
		data, err := os.ReadFile(live + suffix)
		Expect(err).NotTo(HaveOccurred())
		Expect(os.WriteFile(path+suffix, data, 0o644)).To(Succeed())
	}
	damage(path, change)
	return path
}

// codedError is an error of SQLite with a result code, as the driver's.
type codedError int

func (c codedError) Error() string { return fmt.Sprintf("SQLite error %d", int(c)) }
func (c codedError) Code() int     { return int(c) }

// digest returns the SHA-256 of the file at path, in hex.
func digest(path string) string {
	GinkgoHelper()
	data, err := os.ReadFile(path)
	Expect(err).NotTo(HaveOccurred())
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}
