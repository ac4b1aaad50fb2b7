// tsc must reject this: 'attention-viz/inline' is a classic script that sets window.AttentionViz and exports nothing
// (this import would pass a type check and then fail in `vite build` if it were typed as the ES module).
import { ready } from 'attention-viz/inline';

export const loaded: Promise<void> = ready;
