//go:build !obaudit_gcp

package main

import (
	"context"

	"github.com/obaudit/obaudit/campaign"
	"github.com/obaudit/obaudit/refusal"
)

func openGCSStore(ctx context.Context, storage, bucket, prefix, spanner string) (campaign.LogStore, error) {
	return nil, refusal.New(campaign.ErrLogStorage, "%s: this obaudit was built without the GCS log driver; build one with `go build -tags obaudit_gcp ./cmd/obaudit`", storage)
}
