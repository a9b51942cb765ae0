package report

// The maintenance knowledge the report still holds itself, in one place
// (issue 11 moves domain knowledge into the pack; the report takes roles,
// required reads and authored expectations from [Pack] already). A human
// checkpoint that expires has no resolution row: the accepted deadline
// timer, whose payload names the checkpoint, is what closed it. The pack's
// domain contract does not publish that yet.
const (
	deadlineEventType     = "approval_deadline_due"
	deadlineCheckpointKey = "checkpoint_id"
	expiredResolution     = "EXPIRED"
)
