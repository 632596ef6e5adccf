// Branch names the tool writes to: plain enough to be safe in a refspec and a message.

/** Letters, digits, '.', '_', '-' and '/'; not starting with '-', no '..', no trailing '/'. */
export function isUsableBranchName(name: string): boolean {
  return /^(?!-)(?!.*\.\.)[A-Za-z0-9._/-]+$/.test(name) && !name.endsWith('/');
}
