// The docs' pictures, one entry each. `npm run pictures` (scripts/pictures.mjs) renders them
// into docs/images/<name>.png; test/docs/pictures.test.ts fails when one is stale.

/** What a picture is rendered from (scripts/pictures/inputs.ts). */
export type PictureInput =
  /** The comment.md of today's demo (scripts/demo.mjs), as GitHub shows it. */
  | 'demo-comment'
  /** The dashboard page of a generated history (scripts/pictures/history.ts). */
  | 'history-dashboard';

/** Done in order on the page before the picture is taken. */
export type ShotAction =
  /**
   * The mouse onto the first element matching `hover`: onto point `point` of its chart
   * (−1 the newest, 0 the oldest) when given, else the element's centre.
   */
  | { hover: string; point?: number }
  /** A click on the first element matching `click`. */
  | { click: string };

export interface Shot {
  /** The picture is docs/images/<name>.png. */
  name: string;
  input: PictureInput;
  /** The browser window, in CSS pixels: the page is laid out at this width. */
  viewport: { width: number; height: number };
  /** Device pixels per CSS pixel (default 1): 2 stays sharp on high-density screens. */
  scale?: number;
  /** A picture of the first element matching this selector only, else of the window. */
  element?: string;
  /** The whole height of the page instead of the window's. */
  fullPage?: boolean;
  actions?: readonly ShotAction[];
}

/** The dashboard's first throughput chart: that of the first benchmark. */
const FIRST_CHART = 'article.card[data-metric="throughput"]';
const DESKTOP = { width: 1280, height: 800 };
/** A phone held upright (an iPhone 12 to 15's CSS viewport). */
const PHONE = { width: 390, height: 844 };

export const SHOTS: readonly Shot[] = [
  // The README's picture; 1012 px is GitHub's comment column on a wide screen.
  {
    name: 'pr-comment',
    input: 'demo-comment',
    viewport: { width: 1012, height: 800 },
    scale: 2,
    fullPage: true,
  },
  { name: 'dashboard', input: 'history-dashboard', viewport: DESKTOP, element: FIRST_CHART },
  { name: 'dashboard-page', input: 'history-dashboard', viewport: DESKTOP },
  {
    name: 'dashboard-hover',
    input: 'history-dashboard',
    viewport: DESKTOP,
    element: FIRST_CHART,
    actions: [{ hover: FIRST_CHART, point: -1 }],
  },
  { name: 'dashboard-phone', input: 'history-dashboard', viewport: PHONE, scale: 2 },
];

/** Where a shot's picture is, from the clone's root. */
export function picturePath(shot: Pick<Shot, 'name'>): string {
  return `docs/images/${shot.name}.png`;
}
