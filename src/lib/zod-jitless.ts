// Imported first by every island that loads zod. Zod 4 compiles its object parsers with
// `new Function`, and probes whether it may as each object schema is built: under our CSP (no
// 'unsafe-eval') each probe is a reported violation (7 on /users, issue 28), although zod falls back.
// `jitless` skips the probe and the compiler: set here, before any schema module is evaluated.
import { config } from 'zod';

config({ jitless: true });
