// fflate's inflater alone, loaded on first use by www/arrays.js (`loadInflate`): the dist builds bundle only these two
// of fflate's exports (a dynamic import of fflate itself would keep all of it: deflate, gzip, zip).
export { Inflate, inflateSync } from '../node_modules/fflate/esm/browser.js';
