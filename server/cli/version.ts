// The Terraform version whose behaviour Foresight follows; printed by `version` and checked against required_version.
export const TERRAFORM_VERSION = '1.11.4';
export const VERSION_TEXT = `Terraform v${TERRAFORM_VERSION}\non linux_amd64\n`;
