package wire_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/agentsnap/agentsnap/persistence/memory"
	"github.com/agentsnap/agentsnap/wire"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

var _ = Describe("a request body over the server's limit (http.MaxBytesHandler)", func() {
	It("is answered 413, naming the limit, and is no call: nothing is recorded and Close reports nothing", func() {
		store := memory.New()
		h, err := wire.NewHandler(wire.Config{Driver: sayDriver, Store: store})
		Expect(err).NotTo(HaveOccurred())
		srv := httptest.NewServer(http.MaxBytesHandler(h, 1024))
		DeferCleanup(srv.Close)
		big := chat(user(strings.Repeat("a", 4096)))
		req, err := http.NewRequest(http.MethodPost, srv.URL+"/v1/chat/completions", io.NopCloser(strings.NewReader(big)))
		Expect(err).NotTo(HaveOccurred())
		req.ContentLength = -1 // chunked: the handler meets the limit as it reads
		resp, err := http.DefaultClient.Do(req)
		Expect(err).NotTo(HaveOccurred())
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		Expect(resp.StatusCode).To(Equal(http.StatusRequestEntityTooLarge), string(body))
		Expect(string(body)).To(ContainSubstring("the body is over 1024 bytes"))
		Expect(h.Close(context.Background())).To(Succeed())
		headers, err := store.List(context.Background())
		Expect(err).NotTo(HaveOccurred())
		Expect(headers).To(BeEmpty())
	})
})
