/**
 * A list as the API shows it: in GET /api/v2/lists and as `data.list` of `list.created` and
 * `list.updated`. A file of its own, importing nothing, so that the events folder can name it
 * without importing the lists repository (which records its events through the events folder).
 */
export interface ListView {
  id: string;
  name: string;
  archived: boolean;
}
