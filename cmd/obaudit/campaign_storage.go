package main

import (
	"context"
	"net/url"
	"strings"

	"github.com/obaudit/obaudit/campaign"
	"github.com/obaudit/obaudit/refusal"
	"github.com/spf13/cobra"
)

// campaignLogContext returns cmd's context carrying the log store of the
// campaign directory dir: the one storage names (a new campaign's
// --log-storage), else the one dir records in campaign.StorageFile; none
// for a log beneath the directory. Object stores are opened only by a
// binary built with their driver's tag (obaudit_aws, obaudit_gcp). Every
// command that opens a campaign's log comes here first, so tessera is
// quietened (quietTessera) before any log is opened.
func campaignLogContext(cmd *cobra.Command, dir, storage string) (context.Context, error) {
	quietTessera()
	ctx := cmd.Context()
	if storage == "" {
		rec, err := campaign.StorageOf(dir)
		if err != nil {
			return nil, err
		}
		storage = rec
	}
	if storage == "" || storage == "posix" {
		return ctx, nil
	}
	u, err := url.Parse(storage)
	if err != nil || u.Host == "" || u.User != nil || u.Fragment != "" {
		return nil, refusal.New(campaign.ErrLogStorage, "%q is not a storage URL (posix, s3://BUCKET[/PREFIX] or gs://BUCKET[/PREFIX]?spanner=projects/P/instances/I/databases/D)", storage)
	}
	prefix := strings.Trim(u.Path, "/")
	var s campaign.LogStore
	switch u.Scheme {
	case "s3":
		s, err = openS3Store(ctx, storage, u.Host, prefix)
	case "gs":
		s, err = openGCSStore(ctx, storage, u.Host, prefix, u.Query().Get("spanner"))
	default:
		return nil, refusal.New(campaign.ErrLogStorage, "storage %q: obaudit keeps campaign logs in posix (the default), s3:// or gs://", storage)
	}
	if err != nil {
		return nil, err
	}
	return campaign.WithLogStore(ctx, dir, s), nil
}
