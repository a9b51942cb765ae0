//go:build obaudit_gcp

// Package gcslog keeps a campaign log in Google Cloud Storage with
// tessera's GCP driver (GCS for the tiles, Spanner for sequencing). It is
// linked only into binaries built with the obaudit_gcp tag; cmd/obaudit
// opens it for a campaign whose directory records a gs:// storage URL.
package gcslog

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path"

	gcs "cloud.google.com/go/storage"
	"github.com/obaudit/obaudit/campaign"
	"github.com/transparency-dev/tessera"
	tesseragcp "github.com/transparency-dev/tessera/storage/gcp"
)

// Config is where the log lives.
type Config struct {
	URL     string // gs://BUCKET[/PREFIX]?spanner=projects/P/instances/I/databases/D
	Bucket  string
	Prefix  string
	Spanner string // the Spanner database tessera sequences through
	// Client reads the bucket back and is the driver's GCS client.
	Client *gcs.Client
}

// Store is a campaign log store over GCS and Spanner.
type Store struct {
	campaign.ObjectLog
	cfg Config
}

// New returns the store.
func New(cfg Config) *Store {
	s := &Store{cfg: cfg}
	s.Get = s.get
	return s
}

// URL is the storage URL the campaign records.
func (s *Store) URL() string { return s.cfg.URL }

// Driver is tessera's GCP driver over the bucket and the database.
func (s *Store) Driver(ctx context.Context) (tessera.Driver, error) {
	return tesseragcp.New(ctx, tesseragcp.Config{GCSClient: s.cfg.Client, Bucket: s.cfg.Bucket,
		BucketPrefix: s.cfg.Prefix, Spanner: s.cfg.Spanner})
}

func (s *Store) get(ctx context.Context, name string) ([]byte, error) {
	key := name
	if s.cfg.Prefix != "" {
		key = path.Join(s.cfg.Prefix, name)
	}
	r, err := s.cfg.Client.Bucket(s.cfg.Bucket).Object(key).NewReader(ctx)
	if errors.Is(err, gcs.ErrObjectNotExist) {
		return nil, fmt.Errorf("gs://%s/%s: %w", s.cfg.Bucket, key, fs.ErrNotExist)
	}
	if err != nil {
		return nil, fmt.Errorf("gs://%s/%s: %w", s.cfg.Bucket, key, err)
	}
	defer r.Close()
	return campaign.ReadObject(r, "gs://"+s.cfg.Bucket+"/"+key)
}
