import { useState } from 'react';

/**
 * A list page's editing state: which item's form is open (none, a new one, or an existing item),
 * and a counter that makes the list reload after a save or a delete.
 */
export function useEditing<T extends { id: string }>() {
  const [editing, setEditing] = useState<{ item?: T }>();
  const [refresh, setRefresh] = useState(0);
  const reload = () => setRefresh((n) => n + 1);
  return {
    editing,
    refresh,
    reload,
    startNew: () => setEditing({}),
    edit: (item: T) => setEditing({ item }),
    /** The open form's key: a new form and each item's form are separate instances. */
    formKey: editing?.item?.id ?? 'new',
    /** What every editor form takes: the item, and what saving or cancelling does to the page. */
    formProps: {
      existing: editing?.item,
      onSaved: () => {
        setEditing(undefined);
        reload();
      },
      onCancel: () => setEditing(undefined),
    },
  };
}
