// Every relative link of README.md and docs/*.md resolves: to a file that exists and, where it names an anchor of a
// Markdown page, to a heading of that page (GitHub's anchors); the docs index (docs/README.md) lists every page of
// docs/; and `make lab` opens the quickstart notebook with the kernel the notebook names.
import { strict as assert } from 'node:assert';
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';

/** The Markdown pages whose links are checked. */
const PAGES = [
  'README.md',
  ...fs
    .readdirSync('docs')
    .filter((f) => f.endsWith('.md'))
    .sort()
    .map((f) => `docs/${f}`),
];

/** A page's text without its fenced code blocks and inline code (links there are not links). */
function prose(text: string): string {
  return text.replace(/^```[\s\S]*?^```/gm, '').replace(/`[^`\n]*`/g, '');
}

/** GitHub's anchor of a heading: lower case, punctuation dropped (but - and _), spaces to dashes. */
function slug(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/<[^>]+>/g, '')
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

/** The anchors of a page: its headings' (a repeated one gets -1, -2, ...) and any explicit id or name. */
function anchors(text: string): Set<string> {
  const out = new Set<string>(),
    seen = new Map<string, number>();
  for (const m of text.replace(/^```[\s\S]*?^```/gm, '').matchAll(/^#{1,6} (.+?)\s*#*$/gm)) {
    const s = slug(m[1].replace(/`/g, '')),
      n = seen.get(s) ?? 0;
    out.add(n ? `${s}-${n}` : s);
    seen.set(s, n + 1);
  }
  for (const m of text.matchAll(/<a (?:name|id)="([^"]+)"/g)) out.add(m[1]);
  return out;
}

/** The relative links of a page's prose (inline and reference definitions), web addresses left out. */
function relativeLinks(text: string): string[] {
  const p = prose(text);
  return [...p.matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g), ...p.matchAll(/^\[[^\]]+\]: (\S+)/gm)]
    .map((m) => m[1])
    .filter((t) => !/^[a-z][a-z0-9+.-]*:/i.test(t));
}

/** Every broken link of the pages: "<page>: <target> (<why>)". */
function brokenLinks(pages = PAGES): string[] {
  const broken: string[] = [];
  const headings = new Map<string, Set<string>>();
  const anchorsOf = (file: string) => {
    if (!headings.has(file)) headings.set(file, anchors(fs.readFileSync(file, 'utf8')));
    return headings.get(file)!;
  };
  for (const page of pages) {
    for (const t of relativeLinks(fs.readFileSync(page, 'utf8'))) {
      const [file, anchor] = t.split('#');
      const target = file ? path.normalize(path.join(path.dirname(page), decodeURIComponent(file))) : page;
      if (!fs.existsSync(target)) broken.push(`${page}: ${t} (no file ${target})`);
      else if (anchor && target.endsWith('.md') && !anchorsOf(target).has(anchor))
        broken.push(`${page}: ${t} (no heading "${anchor}" in ${target})`);
    }
  }
  return broken;
}

describe('links of README.md and docs/', () => {
  it('every relative link points to a file that exists, and an anchor to a heading of it', () => {
    assert.deepEqual(brokenLinks(), []);
  });

  it('finds a missing file, a missing anchor, and skips code and web addresses (the check can fail)', () => {
    const dir = fs.mkdtempSync(path.join(fs.realpathSync('/tmp'), 'wb-links-'));
    const page = path.join(dir, 'a.md');
    fs.writeFileSync(path.join(dir, 'b.md'), '# B page\n\n## The `x` option, again\n\n## Dup\n\n## Dup\n');
    fs.writeFileSync(
      page,
      [
        '# A',
        '[ok](b.md#the-x-option-again) [dup](b.md#dup-1) [self](#a) [web](https://example.org/x.md)',
        '[gone](c.md) [no anchor](b.md#nope) `[code](d.md)`',
        '```',
        '[fenced](e.md)',
        '```',
        '[ref]: b.md#b-page',
      ].join('\n'),
    );
    assert.deepEqual(
      brokenLinks([page]).map((b) => b.replace(`${page}: `, '')),
      [`c.md (no file ${path.join(dir, 'c.md')})`, `b.md#nope (no heading "nope" in ${path.join(dir, 'b.md')})`],
    );
  });

  it('the docs index lists every page of docs/', () => {
    const index = fs.readFileSync('docs/README.md', 'utf8'),
      linked = new Set(relativeLinks(index).map((t) => t.split('#')[0]));
    const missing = PAGES.filter((p) => p.startsWith('docs/') && p !== 'docs/README.md').filter(
      (p) => !linked.has(path.basename(p)),
    );
    assert.deepEqual(missing, [], 'add each page to docs/README.md');
  });

  it('make lab serves the quickstart notebook first, with the kernel it names (a server started and stopped)', async function () {
    this.timeout(90000);
    const nb = JSON.parse(fs.readFileSync('notebooks/00-quickstart.ipynb', 'utf8'));
    const kernel = nb.metadata.kernelspec.name as string;
    assert.ok(
      fs.existsSync(`.jupyter/share/jupyter/kernels/${kernel}/kernel.json`),
      `make setup registers the kernel "${kernel}"`,
    );
    const port = 20000 + (process.pid % 20000);
    const server = spawn('make', ['lab', `LAB_PORT=${port}`], { detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    try {
      const url = await new Promise<string>((resolve, reject) => {
        let said = '';
        const timer = setTimeout(() => reject(new Error(`no URL from make lab in 60 s:\n${said}`)), 60000);
        const listen = (d: Buffer) => {
          said += d;
          const m = new RegExp(`(http://127\\.0\\.0\\.1:${port}/\\S*token=\\w+)`).exec(said);
          if (m) {
            clearTimeout(timer);
            resolve(m[1]);
          }
        };
        server.stdout.on('data', listen);
        server.stderr.on('data', listen);
        server.on('exit', (code) => reject(new Error(`make lab exited (${code}):\n${said}`)));
      });
      const token = new URL(url).searchParams.get('token')!;
      // the address it prints opens the quickstart
      const first = await fetch(`http://127.0.0.1:${port}/?token=${token}`, { redirect: 'manual' });
      assert.match(first.headers.get('location') ?? '', /00-quickstart\.ipynb/);
      const page = await fetch(
        new URL(first.headers.get('location')!, `http://127.0.0.1:${port}`).href + `?token=${token}`,
      );
      assert.equal(page.status, 200);
      // and the server knows the notebook's kernel
      const specs = (await (await fetch(`http://127.0.0.1:${port}/api/kernelspecs?token=${token}`)).json()) as {
        kernelspecs: Record<string, unknown>;
      };
      assert.ok(kernel in specs.kernelspecs, `kernels: ${Object.keys(specs.kernelspecs).join(', ')}`);
    } finally {
      process.kill(-server.pid!, 'SIGTERM');
    }
  });
});
