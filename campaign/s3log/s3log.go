//go:build obaudit_aws

// Package s3log keeps a campaign log in S3 with tessera's AWS driver (S3
// for the tiles, MySQL for sequencing). It is linked only into binaries
// built with the obaudit_aws tag; cmd/obaudit opens it for a campaign whose
// directory records an s3:// storage URL.
package s3log

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"
	"github.com/obaudit/obaudit/campaign"
	"github.com/transparency-dev/tessera"
	tesseraaws "github.com/transparency-dev/tessera/storage/aws"
)

// Config is where the log lives and how to reach it.
type Config struct {
	URL    string // s3://BUCKET[/PREFIX], as the campaign records it
	Bucket string
	Prefix string
	DSN    string // the MySQL database tessera sequences through
	// SDK is the AWS configuration (credentials, region); S3Options adjust
	// the S3 client (a non-AWS endpoint, path-style addressing).
	SDK       aws.Config
	S3Options func(*s3.Options)
}

// Store is a campaign log store over S3 and MySQL.
type Store struct {
	campaign.ObjectLog
	cfg Config
	s3  *s3.Client
}

// New returns the store; nothing is dialled until the log is used.
func New(cfg Config) *Store {
	if cfg.S3Options == nil {
		cfg.S3Options = func(*s3.Options) {}
	}
	s := &Store{cfg: cfg, s3: s3.NewFromConfig(cfg.SDK, cfg.S3Options)}
	s.Get = s.get
	return s
}

// URL is the storage URL the campaign records.
func (s *Store) URL() string { return s.cfg.URL }

// Driver is tessera's AWS driver over the bucket and the database.
func (s *Store) Driver(ctx context.Context) (tessera.Driver, error) {
	sdk := s.cfg.SDK
	return tesseraaws.New(ctx, tesseraaws.Config{SDKConfig: &sdk, S3Options: s.cfg.S3Options,
		Bucket: s.cfg.Bucket, BucketPrefix: s.cfg.Prefix, DSN: s.cfg.DSN})
}

func (s *Store) get(ctx context.Context, name string) ([]byte, error) {
	key := name
	if s.cfg.Prefix != "" {
		key = path.Join(s.cfg.Prefix, name)
	}
	where := "s3://" + s.cfg.Bucket + "/" + key
	r, err := s.s3.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String(s.cfg.Bucket), Key: aws.String(key)})
	if err != nil {
		var nsk *types.NoSuchKey
		if errors.As(err, &nsk) {
			err = fs.ErrNotExist
		}
		return nil, fmt.Errorf("%s: %w", where, err)
	}
	defer r.Body.Close()
	return campaign.ReadObject(r.Body, where)
}
