//go:build obaudit_gcp

package main

import (
	"context"

	gcs "cloud.google.com/go/storage"
	"github.com/obaudit/obaudit/campaign"
	"github.com/obaudit/obaudit/campaign/gcslog"
	"github.com/obaudit/obaudit/refusal"
)

// openGCSStore opens a gs:// campaign log store: tessera's GCP driver over
// the bucket, sequencing through the Spanner database the URL's spanner
// parameter names, with the application default credentials.
func openGCSStore(ctx context.Context, storage, bucket, prefix, spanner string) (campaign.LogStore, error) {
	if spanner == "" {
		return nil, refusal.New(campaign.ErrLogStorage, "%s: name the Spanner database tessera sequences this log through (?spanner=projects/P/instances/I/databases/D)", storage)
	}
	c, err := gcs.NewClient(ctx)
	if err != nil {
		return nil, refusal.Wrap(campaign.ErrLogStorage, err, "%s: the GCS client", storage)
	}
	return gcslog.New(gcslog.Config{URL: storage, Bucket: bucket, Prefix: prefix, Spanner: spanner, Client: c}), nil
}
