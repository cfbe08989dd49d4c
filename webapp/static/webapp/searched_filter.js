'use strict';
// A list filter whose row is searched for (webapp.scoping.SearchedRelatedFilter): choosing a
// row applies the filter; clearing the choice removes it.
django.jQuery(function($) {
    $('form.searched-filter select').on('change', function() {
        this.disabled = !this.value;
        this.form.submit();
    });
});
