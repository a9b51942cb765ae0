//go:build obaudit_aws

package main

import (
	"bytes"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/go-sql-driver/mysql"
	"github.com/johannesboyne/gofakes3"
	"github.com/johannesboyne/gofakes3/backend/s3mem"
	"github.com/obaudit/obaudit/campaign"
	"github.com/obaudit/obaudit/campaign/campaigntest"
)

// TestCampaignS3Log keeps a campaign's log in S3 through tessera's AWS
// driver: a real MySQL-protocol server (MariaDB; .ci/steps/65-cloud-log.sh
// starts one and sets OBAUDIT_TEST_MYSQL_DSN) sequences it, and gofakes3,
// an in-process S3 implementation on a loopback listener, stands in for S3
// (it serves the REST API the AWS SDK speaks, conditional puts included).
// The same plan run (--parallel 1: log order is plan order) with its log
// beneath the directory must give a
// byte-identical report, verify must accept the S3 campaign, and a log
// object rewritten in the bucket must be refused.
func TestCampaignS3Log(t *testing.T) {
	root := os.Getenv("OBAUDIT_TEST_MYSQL_DSN")
	if root == "" {
		if os.Getenv("OBAUDIT_REQUIRE_UPSTREAM") == "1" {
			t.Fatal("OBAUDIT_TEST_MYSQL_DSN is unset: CI runs this test against the MariaDB server .ci/steps/65-cloud-log.sh starts")
		}
		t.Skip("OBAUDIT_TEST_MYSQL_DSN is unset (a MySQL DSN without a database, e.g. root@unix(/run/mysqld/mysqld.sock)/)")
	}
	dsn := freshDatabase(t, root)
	mem := s3mem.New()
	if err := mem.CreateBucket("obaudit-campaigns"); err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(gofakes3.New(mem).Server())
	defer srv.Close()
	t.Setenv("OBAUDIT_LOG_MYSQL_DSN", dsn)
	t.Setenv("OBAUDIT_S3_ENDPOINT", srv.URL)
	t.Setenv("AWS_ACCESS_KEY_ID", "test")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "test")
	t.Setenv("AWS_REGION", "us-east-1")
	t.Setenv("AWS_EC2_METADATA_DISABLED", "true")
	quietTessera()

	tmp := campaigntest.TempDir(t)
	key := filepath.Join(tmp, "k")
	mustRun(t, "keygen", "--output", key)
	key += ".key"
	f := campaignFile(t, tmp, []string{"reference", "always_wait"}, []string{"V1", "V2"}, 2, "obaudit.example/campaign/s3")
	inS3, local := filepath.Join(tmp, "s3camp"), filepath.Join(tmp, "local")
	const storage = "s3://obaudit-campaigns/campaigns/c1"
	mustRun(t, "campaign", "plan", f, "--output", inS3, "--key", key, "--log-storage", storage)
	mustRun(t, "campaign", "plan", f, "--output", local, "--key", key)
	if _, err := os.Lstat(filepath.Join(inS3, campaign.LogDir)); !os.IsNotExist(err) {
		t.Fatalf("the S3 campaign has a local log directory (%v)", err)
	}
	if rec, err := campaign.StorageOf(inS3); err != nil || rec != storage {
		t.Fatalf("recorded storage = %q, %v", rec, err)
	}
	mustRun(t, "campaign", "run", inS3, "--key", key, "--parallel", "1")
	mustRun(t, "campaign", "run", local, "--key", key, "--parallel", "1")
	for _, d := range []string{inS3, local} {
		if code, class := verifyClass(t, d, filepath.Join(d, campaign.PreDispatchFile)); code != 0 {
			t.Fatalf("verify %s = %d %s, want 0", d, code, class)
		}
	}
	a, _ := os.ReadFile(filepath.Join(inS3, campaign.ReportFile))
	b, _ := os.ReadFile(filepath.Join(local, campaign.ReportFile))
	if len(a) == 0 || !bytes.Equal(a, b) {
		t.Fatalf("the S3 campaign's report (%d bytes) differs from the local one's (%d bytes)", len(a), len(b))
	}
	if got := mustRun(t, "--json", "campaign", "report", inS3); got != string(a) {
		t.Errorf("campaign report --json of the S3 campaign differs from its report.json")
	}

	// An entry bundle rewritten in the bucket is refused.
	obj, err := mem.GetObject("obaudit-campaigns", "campaigns/c1/tile/entries/000.p/9", nil)
	if err != nil {
		t.Fatalf("entry bundle: %v", err)
	}
	obj.Contents.Close()
	if _, err := mem.PutObject("obaudit-campaigns", "campaigns/c1/tile/entries/000.p/9", map[string]string{}, strings.NewReader("\x00\x01x"), 3, nil); err != nil {
		t.Fatal(err)
	}
	if code, class := verifyClass(t, inS3, filepath.Join(inS3, campaign.PreDispatchFile)); code != 1 || class != string(campaign.ErrLogInvalid.Class) {
		t.Errorf("verify after rewriting an entry bundle = %d %q, want 1 %s", code, class, campaign.ErrLogInvalid.Class)
	}

	// A campaign recording an S3 log, read without its store (another
	// StorageFile), is refused by class, not read as an empty local log.
	if err := os.WriteFile(filepath.Join(inS3, campaign.StorageFile), []byte("ftp://x/y\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, class := verifyClass(t, inS3, ""); code != 1 || class != string(campaign.ErrLogStorage.Class) {
		t.Errorf("verify with an unknown storage scheme = %d %q, want 1 %s", code, class, campaign.ErrLogStorage.Class)
	}
}

// freshDatabase creates a new database on the server root names and
// returns the DSN of it (tessera's AWS driver keeps one log per database).
func freshDatabase(t *testing.T, root string) string {
	t.Helper()
	cfg, err := mysql.ParseDSN(root)
	if err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("mysql", root)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var r [6]byte
	rand.Read(r[:])
	name := "obaudit_" + hex.EncodeToString(r[:])
	if _, err := db.Exec("CREATE DATABASE " + name); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if db, err := sql.Open("mysql", root); err == nil {
			db.Exec("DROP DATABASE " + name)
			db.Close()
		}
	})
	cfg.DBName = name
	return cfg.FormatDSN()
}
