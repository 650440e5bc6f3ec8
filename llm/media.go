package llm

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"maps"
	"net/url"
	"strconv"
	"strings"

	"github.com/agentsnap/agentsnap/session"
)

// Media is an agent's own content block for each image and file part of
// its request: the log holds a digest of the bytes, so a live driver of
// the request's API sends this block for the part, and the model gets
// what the agent sent. Each part has the block it was sent in, by its
// Place in the conversation: the same image sent twice, once with a
// detail or a cache_control and once without, goes out twice as sent,
// while the log holds one digest for both. A Media is not changed once a
// request holds it (Merge copies).
type Media map[string]json.RawMessage

// Place is where an image or file part stands in a request's
// conversation: part Part of message Message (both from 0), or, when
// Inner is not 0, part Inner-1 of the content of that tool result part.
type Place struct{ Message, Part, Inner int }

// Add returns m with block for p's attachment at place at, m itself when
// it is not nil: a reader adds to a Media of its own, and requests share
// it once read.
func (m Media) Add(p *session.Part, at Place, block json.RawMessage) Media {
	if m == nil {
		m = Media{}
	}
	m[placed(p.Attachment.Key(), at)] = block
	return m
}

// placed is the key of the block of the attachment of key at at.
func placed(key string, at Place) string {
	b := append([]byte(key), '@')
	b = strconv.AppendInt(b, int64(at.Message), 10)
	b = strconv.AppendInt(append(b, '.'), int64(at.Part), 10)
	if at.Inner != 0 {
		b = strconv.AppendInt(append(b, '.'), int64(at.Inner-1), 10)
	}
	return string(b)
}

// Merge returns the blocks of before and added (added's win): before
// itself when added is empty, else a new Media.
func Merge(before, added Media) Media {
	if len(added) == 0 {
		return before
	}
	out := maps.Clone(before)
	if out == nil {
		out = Media{}
	}
	maps.Copy(out, added)
	return out
}

// Block returns the agent's block for the image or file part p at place
// at, or an error saying the live model cannot get it.
func (m Media) Block(p *session.Part, at Place) (json.RawMessage, error) {
	if p.Attachment != nil {
		if b, ok := m[placed(p.Attachment.Key(), at)]; ok {
			return b, nil
		}
	}
	return nil, fmt.Errorf("an %s part (%s): the log holds its digest, not its bytes, and a live model gets it only "+
		"in a call an agent made over the wire (wire, serve) in the API it was sent in; agentsnap cannot send it here",
		p.Type, Describe(p.Attachment))
}

// Describe shows an attachment in a few words: its media type, size and
// digest (abbreviated), or its URL or file id, and the clip of a video.
func Describe(a *session.Attachment) string {
	if a == nil {
		return "no attachment"
	}
	var out []string
	if a.MediaType != "" {
		out = append(out, a.MediaType)
	}
	if a.Name != "" {
		out = append(out, fmt.Sprintf("%q", a.Name))
	}
	switch {
	case a.ID != "":
		id := a.ID
		if len(id) > len("sha256:")+12 {
			id = id[:len("sha256:")+12] + "…"
		}
		out = append(out, fmt.Sprintf("%d bytes", a.Bytes), id)
	case a.URL != "":
		out = append(out, a.URL)
	case a.FileID != "":
		out = append(out, "file "+a.FileID)
	}
	if a.VideoMetadata != nil {
		out = append(out, "clip "+string(a.VideoMetadata))
	}
	return strings.Join(out, " ")
}

// Attach returns the part of kind (session.PartImage or PartFile) for
// data, of mediaType, named name ("" for none).
func Attach(kind, mediaType, name string, data []byte) session.Part {
	sum := sha256.Sum256(data)
	return session.Part{Type: kind, Attachment: &session.Attachment{
		ID: "sha256:" + hex.EncodeToString(sum[:]), MediaType: mediaType, Bytes: len(data), Name: name}}
}

// AttachBase64 is Attach for data in standard base64, as the APIs take
// it; what is not base64 is an error.
func AttachBase64(kind, mediaType, name, data string) (session.Part, error) {
	b, err := base64.StdEncoding.DecodeString(strings.TrimSpace(data))
	if err != nil {
		return session.Part{}, fmt.Errorf("the %s's data is not base64: %w", kind, err)
	}
	return Attach(kind, mediaType, name, b), nil
}

// AttachURL returns the part of kind for what u says: the bytes of a
// data: URL, else the URL as the log may hold it (RecordedURL).
func AttachURL(kind, mediaType, name, u string) (session.Part, error) {
	if rest, ok := strings.CutPrefix(u, "data:"); ok {
		meta, data, ok := strings.Cut(rest, ",")
		if !ok {
			return session.Part{}, fmt.Errorf("the %s's data: URL has no comma", kind)
		}
		typ, isBase64 := strings.CutSuffix(meta, ";base64")
		if typ, _, _ = strings.Cut(typ, ";"); typ != "" {
			mediaType = typ
		}
		if isBase64 {
			return AttachBase64(kind, mediaType, name, data)
		}
		text, err := url.PathUnescape(data)
		if err != nil {
			return session.Part{}, fmt.Errorf("the %s's data: URL: %w", kind, err)
		}
		return Attach(kind, mediaType, name, []byte(text)), nil
	}
	return session.Part{Type: kind, Attachment: &session.Attachment{URL: RecordedURL(u), MediaType: mediaType, Name: name}}, nil
}

// RecordedURL is u as a log holds it: without its user info, query and
// fragment, which may be credentials (a presigned URL's signature, a
// token, user:password) no secret set knows, and with a digest of the
// whole URL in their place, so that another query is still another
// attachment (drift). The live model gets the agent's own block, whole.
func RecordedURL(u string) string {
	p, err := url.Parse(u)
	if err != nil || p.User == nil && p.RawQuery == "" && !p.ForceQuery && p.Fragment == "" && p.Opaque == "" {
		if err != nil {
			// Not a URL a reader could split: nothing of it is shown.
			return "sha256:" + hexSum(u)
		}
		return u
	}
	sum := hexSum(u)
	p.User, p.RawQuery, p.ForceQuery, p.Fragment, p.RawFragment = nil, "", false, "", ""
	if p.Opaque != "" { // scheme:opaque?query: the opaque part may be a token too
		return p.Scheme + ":…#sha256:" + sum[:24]
	}
	return p.String() + "#sha256:" + sum[:24]
}

func hexSum(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}

// AttachFile returns the part of kind for a file the API holds, by id.
func AttachFile(kind, mediaType, name, id string) session.Part {
	return session.Part{Type: kind, Attachment: &session.Attachment{FileID: id, MediaType: mediaType, Name: name}}
}

// NotRecorded is the error for content agentsnap does not record yet:
// where is where in the request it stands ("messages[2].content[1]"),
// what its type there. Dropping it would record, and drive a live model
// with, another request than the agent's.
func NotRecorded(where, what string) error {
	return fmt.Errorf("%s: a %q part: agentsnap does not record it yet, and will not drop it (the model would get "+
		"another request than the agent sent); leave it out of the agent's request, or send it as text", where, what)
}
