package jsonl_test

import (
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

func TestJSONL(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "persistence/jsonl")
}
