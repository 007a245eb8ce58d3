// Whether this process's group is the foreground process group of its controlling terminal: a keyboard Ctrl-C is
// then delivered to every process of the group. Plain JavaScript: it runs on a Node without type stripping (the
// re-exec wrapper in credential-vault.js).
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

/**
 * The process group and the terminal's foreground group from Linux's /proc/<pid>/stat (fields 5 and 8, after the
 * parenthesised command name, which may itself hold spaces and parentheses); undefined when the text is not that.
 */
export function groupsFromStat(stat) {
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const pgrp = Number(fields[2]);
  const tpgid = Number(fields[5]);
  return Number.isInteger(pgrp) && Number.isInteger(tpgid) ? { pgrp, tpgid } : undefined;
}

/** The same two numbers from `ps` (macOS and the BSDs have no /proc). */
function groupsFromPs(pid) {
  const text = execFileSync('ps', ['-o', 'pgid=,tpgid=', '-p', String(pid)], { encoding: 'utf8', timeout: 2000 });
  const [pgrp, tpgid] = text.trim().split(/\s+/).map(Number);
  return Number.isInteger(pgrp) && Number.isInteger(tpgid) ? { pgrp, tpgid } : undefined;
}

/** True when this process runs in the foreground of a terminal; without a way to tell, when standard input is one. */
export function terminalForeground(pid = process.pid) {
  let groups;
  try {
    groups = groupsFromStat(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    try {
      groups = groupsFromPs(pid);
    } catch {
      groups = undefined;
    }
  }
  if (!groups) return Boolean(process.stdin.isTTY);
  // no controlling terminal: tpgid is -1 (Linux) or 0
  return groups.tpgid > 0 && groups.tpgid === groups.pgrp;
}
