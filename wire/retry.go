package wire

import "net/http"

// retryAtOnce marks the answer about to be written on w — a failure a
// model call or token count ended with, served as recorded (in a replay,
// from the recording; while recording, as the live model failed it, after
// the live driver's own back-off) — as one the agent's SDK may retry
// without waiting. Whether it retries stays the status's decision, as it
// was while recording, so the retries and the logs are the same; only the
// SDK's back-off (0.5 s before the first retry, doubling) is gone.
//
// Why these values: the official SDKs that retry by default — openai-go,
// anthropic-sdk-go, the npm openai and @anthropic-ai/sdk packages, their
// Python twins, the Vercel AI SDK — read retry-after-ms before Retry-After
// and wait that long instead of their back-off. Some read 0 as no value
// (npm releases that test `ms && 0 <= ms`; Python takes only 0 < s <= 60),
// so it is 1 ms. Retry-After 0 is for clients that read the standard
// header alone; those above never get to it. google.golang.org/genai
// retries only when the agent sets HTTPOptions.RetryOptions and then reads
// no header: its InitialDelay is the agent's. A recording keeps no
// Retry-After of the live API (the driver honoured it, session.Failure
// has none), so nothing recorded can make a replay wait.
func retryAtOnce(w http.ResponseWriter) {
	h := w.Header()
	h.Set("Retry-After-Ms", "1")
	h.Set("Retry-After", "0")
}

// refuse answers a request agentsnap itself cannot serve — a broken body,
// an unknown path or session, drift, a call that cannot start — in f's
// error shape, telling SDKs that honour x-should-retry (the official
// OpenAI and Anthropic ones) not to send it again: it would fail the same
// way, after a real back-off. Most such answers are 4xx, which they do
// not retry anyway; a 502 (a token count the live model did not answer)
// they would, twice.
func refuse(w http.ResponseWriter, f Format, status int, code, message string) {
	w.Header().Set("X-Should-Retry", "false")
	f.WriteError(w, status, code, message)
}
